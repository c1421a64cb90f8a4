// Copying text: the Clipboard API where the page may use it (https, localhost), else the
// selection and `execCommand('copy')`, as the dashboard's copy button does: on a plain-http LAN
// address `navigator.clipboard` is undefined, and a bare call would fail silently.
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'visually-hidden';
    const back = document.activeElement as HTMLElement | null;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
    back?.focus(); // the button keeps the focus it had
    return ok;
  }
}
