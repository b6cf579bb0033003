// Applies a chosen theme before the first paint (a module script would run too late and the
// page would flash in the other theme). Kept tiny and separate: the page allows no inline script.
try {
  const theme = localStorage.getItem('python-session-theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
} catch {
  /* storage blocked: follow the system */
}
