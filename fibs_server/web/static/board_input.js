// Pointer and keyboard input on the board that board_view.js draws: which point or die was
// pressed, clicked or dragged where. It decides nothing: `handlers` do (play.js knows the
// moves). Listeners sit on the holder, so the page may redraw the SVG inside it at will.
//
// handlers: canPick(point) → bool, onPick(point), onDrop(from, to | null), onClick(point),
// onDie(die). A press and release without moving is a click (click-click moving: the page
// picks on the first, moves on the second); a press on a pickable point that moves drags a
// ghost checker and drops it on the point under the pointer.

const DRAG_START_PX = 6; // less movement than this is a shaky click, not a drag

function pointOf(element) {
  const group = element?.closest?.("[data-point]");
  return group ? Number(group.dataset.point) : null;
}

function playerDieOf(element) {
  const die = element?.closest?.('[data-die][data-side="player"]');
  return die ? Number(die.dataset.die) : null;
}

export function attachBoardInput(holder, handlers) {
  let press = null; // {pointerId, point, x, y, ghost}

  function moveGhost(ghost, x, y) {
    ghost.style.left = `${x}px`;
    ghost.style.top = `${y}px`;
  }

  function startDrag(event) {
    // The pointer is captured: the event's target is the holder, not the point.
    const checker = holder.querySelector(`[data-point="${press.point}"] .checker.mine`);
    const ghost = document.createElement("div");
    ghost.className = "board-ghost";
    const size = checker ? checker.getBoundingClientRect().width : 24;
    ghost.style.width = ghost.style.height = `${size}px`;
    moveGhost(ghost, event.clientX, event.clientY);
    document.body.append(ghost);
    press.ghost = ghost;
    handlers.onPick(press.point);
  }

  function end() {
    press?.ghost?.remove();
    press = null;
  }

  function onPointerDown(event) {
    if (event.button !== 0 || press) return;
    const die = playerDieOf(event.target);
    if (die !== null) {
      handlers.onDie(die);
      return;
    }
    const point = pointOf(event.target);
    if (point === null) return;
    press = { pointerId: event.pointerId, point, x: event.clientX, y: event.clientY, ghost: null };
    holder.setPointerCapture?.(event.pointerId); // keep the drag when it leaves the board
    event.preventDefault();
  }

  function onPointerMove(event) {
    if (!press || event.pointerId !== press.pointerId) return;
    if (press.ghost) {
      moveGhost(press.ghost, event.clientX, event.clientY);
    } else if (Math.hypot(event.clientX - press.x, event.clientY - press.y) >= DRAG_START_PX
      && handlers.canPick(press.point)) {
      startDrag(event);
    }
  }

  function onPointerUp(event) {
    if (!press || event.pointerId !== press.pointerId) return;
    const { point, ghost, x, y } = press;
    end();
    if (ghost) {
      // The captured pointer's target is the holder: ask what lies under the pointer.
      const under = document.elementFromPoint(event.clientX, event.clientY);
      handlers.onDrop(point, holder.contains(under) ? pointOf(under) : null);
    } else if (Math.hypot(event.clientX - x, event.clientY - y) < DRAG_START_PX) {
      handlers.onClick(point);
    }
  }

  function onPointerCancel(event) {
    if (!press || event.pointerId !== press.pointerId) return;
    const { point, ghost } = press;
    end();
    if (ghost) handlers.onDrop(point, null);
  }

  function onKeyDown(event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    const die = playerDieOf(event.target);
    const point = pointOf(event.target);
    if (die === null && point === null) return;
    event.preventDefault(); // a space would scroll the page
    if (die !== null) handlers.onDie(die);
    else handlers.onClick(point);
  }

  const listeners = { pointerdown: onPointerDown, pointermove: onPointerMove, pointerup: onPointerUp,
    pointercancel: onPointerCancel, keydown: onKeyDown };
  for (const [type, listener] of Object.entries(listeners)) holder.addEventListener(type, listener);
  return function detach() {
    end();
    for (const [type, listener] of Object.entries(listeners)) holder.removeEventListener(type, listener);
  };
}
