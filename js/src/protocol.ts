// The wire between the kernel-side TimelineWidget (mewrk_jupyter/widget/) and a view. Its types are
// generated from the pydantic models of mewrk_jupyter/widget/protocol/ (see protocol.generated.ts).
export type * from "./protocol.generated";
