/** The console's stylesheet, served at /console/assets/console.css (no CDN, no build step). */
export const CONSOLE_CSS = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f4}
header{background:#0b3d6b;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
header a,header strong{color:#fff}header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;min-width:0}
header form{margin:0;display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
header button{margin:0;padding:.35rem .8rem;background:#fff;color:#0b3d6b}
main{max-width:56rem;margin:0 auto;padding:1rem}h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.2rem;margin:0 0 .5rem;overflow-wrap:anywhere}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;color:#0b3d6b;padding:.25rem .5rem}
article{background:#fff;border:1px solid #bbb;border-radius:.5rem;padding:1rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{font-weight:600;color:#333}dd{margin:0;overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse;margin:0 0 1rem}caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;border-bottom:1px solid #ddd;padding:.35rem .5rem;vertical-align:top;overflow-wrap:anywhere}
td.masked{font-family:ui-monospace,monospace}.tag{font-size:.8rem;color:#444}
.risk-high,.risk-critical{color:#8a1c00;font-weight:700}
label{display:block;margin:.5rem 0 .25rem;font-weight:600}
input[type=password],input[type=text],input[type=datetime-local],select,textarea{width:100%;padding:.6rem;border:1px solid #767676;border-radius:.4rem;font:inherit;background:#fff}
button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:.4rem;background:#0b5394;color:#fff;cursor:pointer;margin:.5rem .5rem 0 0}
button.deny{background:#8a1c00}
a{color:#0b5394}
:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.notice{border-left:4px solid #0b5394;background:#e8f0f8;padding:.5rem .75rem}
.error{border-left:4px solid #b00020;background:#fdecee;padding:.5rem .75rem}
code{overflow-wrap:anywhere}
header nav a[aria-current=page]{text-decoration:none;border-bottom:3px solid #fff}
.filters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end;margin:0 0 1rem}
.filters .field{flex:1 1 12rem;min-width:0}
form.inline{display:inline;margin:0}
button.small{padding:.15rem .6rem;margin:0 0 0 .5rem;font-size:.9rem}
.check{display:flex;gap:.5rem;align-items:center;margin:.75rem 0}.check label{margin:0}
.check input{width:1.25rem;height:1.25rem}
td.revealed{font-family:ui-monospace,monospace;font-weight:600}
.verdict-refused,.verdict-failed{color:#8a1c00}.verdict-passes{color:#1d5e20}
dd ul{margin:.25rem 0;padding-left:1.25rem}
section{margin:1.5rem 0}
@media (max-width:30rem){dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}}
`;
