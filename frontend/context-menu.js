// A right-click menu built from text items (never HTML).
import { h } from './dom.js';

/** @type {HTMLElement|null} */
let open = null;

export function closeMenu() {
  if (open) { open.remove(); open = null; }
}

/**
 * @param {MouseEvent} ev
 * @param {({label: string, action: () => void}|null)[]} items null = separator
 */
export function showMenu(ev, items) {
  closeMenu();
  const menu = h('div', { class: 'ctx', role: 'menu', 'data-testid': 'context-menu' });
  for (const it of items) {
    if (!it) { menu.append(h('div', { class: 'ctx-sep' })); continue; }
    menu.append(h('div', { class: 'ctx-item', role: 'menuitem', text: it.label, onclick: () => { closeMenu(); it.action(); } }));
  }
  document.body.append(menu);
  const r = menu.getBoundingClientRect();
  menu.style.left = `${Math.min(ev.clientX, window.innerWidth - r.width - 4)}px`;
  menu.style.top = `${Math.min(ev.clientY, window.innerHeight - r.height - 4)}px`;
  open = menu;
}

window.addEventListener('pointerdown', (e) => { if (open && !open.contains(/** @type {Node} */ (e.target))) closeMenu(); }, true);
window.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeMenu(); });
window.addEventListener('blur', closeMenu);
