// What a person sees who opens the browser host without its session token, e.g. from a bookmark
// (the page takes the token out of the address bar once loaded) or after the host restarted with
// a new token. A page, not JSON: it is read by a person in a browser tab.

export type TokenProblem = "missing" | "wrong";

/** Whether the request is a browser navigation to a page (not a script, style or bridge call). */
export function wantsPage(accept: string | undefined): boolean {
  return /\btext\/html\b/.test(accept ?? "");
}

const WHY: Record<TokenProblem, string> = {
  missing: "This address has no session token.",
  wrong:
    "The session token of this address is not the one of the running host (it changes each time the host starts).",
};

/** A small self-contained page (no scripts, no styles: the host's CSP allows neither inline). */
export function tokenHelpPage(problem: TokenProblem): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keydesk: open the address the browser host printed</title>
</head>
<body>
<main>
<h1>Keydesk needs the address the browser host printed</h1>
<p>${WHY[problem]} Every address of the Keydesk browser host carries a random session token, so
that no other page or program on this computer can use it. Keydesk takes the token out of the
address bar once the page is open, so a bookmark or a copied address does not have it.</p>
<h2>How to get a valid address</h2>
<ol>
<li>Look at the terminal where you started <code>npm run web</code>: it printed a line
<code>keydesk web ui at http://127.0.0.1:PORT/?token=…</code>. Open that address.</li>
<li>If the host is no longer running, start it again with <code>npm run -s web</code> and open
the address it prints (the token is new each time).</li>
</ol>
</main>
</body>
</html>
`;
}
