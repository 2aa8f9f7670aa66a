// Board lines the page's tests share.

// The opening example of docs/BOARDS.md: you are O and opened with 6-2 in a 3-point match.
export const OPENING = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
