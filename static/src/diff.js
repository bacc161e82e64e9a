// The diff view, a chunk of its own: loaded the first time a past run or the reference is compared.
export { unifiedMergeView } from "@codemirror/merge";
