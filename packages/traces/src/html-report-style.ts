/**
 * The report page's stylesheet, inlined so the page loads nothing. Outcomes carry a mark and a
 * word as well as a colour, so the page reads the same without colour.
 */
export const htmlReportStyle = `
:root { color-scheme: light dark; --row: 28px; font: 14px/1.4 system-ui, sans-serif; }
body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
header { padding: 8px 12px; border-bottom: 1px solid #8884; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
h1 { font-size: 16px; margin: 0; }
#counts { display: flex; gap: 6px; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
#counts button { font: inherit; border: 1px solid #8886; border-radius: 4px; padding: 2px 8px; background: none; color: inherit; cursor: pointer; }
#counts button[aria-pressed="true"] { outline: 2px solid currentColor; }
label { display: inline-flex; gap: 4px; align-items: center; }
#shown { margin: 0; opacity: 0.8; }
main { flex: 1; display: flex; min-height: 0; }
#viewport { flex: 1; overflow-y: auto; position: relative; }
#spacer { position: relative; }
.row { position: absolute; left: 0; right: 0; height: var(--row); display: grid; grid-template-columns: 8.5em 14em 12em 1fr 14em; gap: 8px; align-items: center; padding: 0 12px; box-sizing: border-box; border-bottom: 1px solid #8882; cursor: pointer; white-space: nowrap; }
.row > span { overflow: hidden; text-overflow: ellipsis; }
.row:hover, .row:focus { background: #8882; outline: none; }
.row[aria-selected="true"] { background: #8884; }
.head { position: sticky; top: 0; z-index: 1; background: Canvas; font-weight: 600; cursor: default; }
.mark { font-weight: 700; display: inline-block; width: 1.2em; }
.success { color: #1a7f37; } .partial { color: #9a6700; } .error { color: #cf222e; }
.denied { color: #8250df; } .unknown { color: #6e7781; }
#details { width: 24em; border-left: 1px solid #8884; padding: 8px 12px; overflow-y: auto; }
#details[hidden] { display: none; }
#details dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 8px; margin: 0; }
#details dt { font-weight: 600; }
#details dd { margin: 0; word-break: break-word; }
#empty { padding: 12px; }
`;
