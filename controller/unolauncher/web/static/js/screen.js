// The table screen's extras (issue "the whole turn on one screen"): who can be caught without UNO, announced in
// the top bar whatever view is open (ATK-18, MK-15: until the next player starts), one tap from the catch sheet.

/**
 *   renderCatchable(document.getElementById("catchable"), state, (player) => seatSheet.open(player));
 */
export function renderCatchable(button, state, open) {
  const exposed = state && state.phase === "playing" ? state.uno_exposed : null;
  button.hidden = !exposed;
  if (!exposed) {
    button.onclick = null;
    return;
  }
  button.textContent = `Catch ${exposed}!`;
  button.title = `${exposed} has one card left and has not called UNO: tap to catch them (or let them call it).`;
  button.setAttribute("aria-label", button.title);
  button.onclick = () => open(exposed);
}
