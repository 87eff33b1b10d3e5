// anywidget entry point: one TimelineView per rendered output of a TimelineWidget.
import "./style.css";
import type { WidgetModel } from "./connection";
import { TimelineView } from "./view";

export default {
  render({ model, el }: { model: WidgetModel; el: HTMLElement }) {
    const view = new TimelineView(model, el);
    return () => view.dispose();
  },
};
