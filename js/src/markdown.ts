// A model's Markdown as sanitised HTML: no script, handler or javascript: URL from a reply ever runs,
// and no image loads from a remote address until the person asks for it (an image URL can carry data
// out of the notebook the moment it loads).
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** Where a remote image's address waits, on an <img> that has no src yet. */
const REMOTE_SRC = "data-mw-remote-src";

/** Addresses the person chose to load: a card drawn again shows their images at once. */
const loaded = new Set<string>();

let hooked = false;

/** The address an image would load from, when loading it reaches the network (http or https). */
function remoteAddress(src: string): URL | null {
  try {
    const url = new URL(src, document.baseURI);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tagName === "IMG") {
      const src = node.getAttribute("src") ?? "";
      if (remoteAddress(src)) {
        // Parked: an <img> without src loads nothing when the HTML is put into the page.
        node.removeAttribute("src");
        node.setAttribute(REMOTE_SRC, src);
      }
    }
  });
}

/** Markdown → safe HTML string; remote images come out parked (see `renderMarkdownInto`). */
export function renderMarkdown(text: string): string {
  hook();
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    // Media and embeds would load from their URLs at once; a form or button would act.
    FORBID_TAGS: [
      "style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed",
      "video", "audio", "source", "track", "picture",
    ],
    // Each of these makes the browser fetch a URL by itself (srcset and background for images).
    FORBID_ATTR: ["style", "srcset", "background", "poster", "ping"],
  });
}

/** Put a model's Markdown into `el`: each remote image shows as a button that loads it when clicked. */
export function renderMarkdownInto(el: HTMLElement, text: string): void {
  el.innerHTML = renderMarkdown(text);
  for (const img of Array.from(el.querySelectorAll<HTMLImageElement>(`img[${REMOTE_SRC}]`))) {
    const src = img.getAttribute(REMOTE_SRC) ?? "";
    img.removeAttribute(REMOTE_SRC);
    if (loaded.has(src)) {
      img.src = src;
      continue;
    }
    const host = remoteAddress(src)?.host ?? src;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "mw-remote-image";
    button.textContent = `Load image from ${host}`;
    button.title = img.alt ? `${img.alt} — ${src}` : src;
    button.addEventListener("click", (event) => {
      event.stopPropagation(); // a click on a card selects it; this one only loads the image
      loaded.add(src);
      img.src = src;
      button.replaceWith(img);
    });
    img.replaceWith(button);
  }
}
