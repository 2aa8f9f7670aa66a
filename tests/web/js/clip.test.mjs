// The page's reading of the server's lines (fibs_server/web/static/clip.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { splitMessage, welcomeName } from "../../../fibs_server/web/static/clip.js";

test("a message is whole lines and perhaps a prompt", () => {
  assert.deepEqual(splitMessage("a\r\nb\r\n"), { lines: ["a", "b"], prompt: null });
  assert.deepEqual(splitMessage("banner\r\nlogin: "), { lines: ["banner"], prompt: "login: " });
  assert.deepEqual(splitMessage("\r\nPlease retype your password: "),
    { lines: [""], prompt: "Please retype your password: " });
});

test("CLIP's welcome line names who logged in; nothing else does", () => {
  assert.equal(welcomeName("1 alice 1041253132 192.168.1.308"), "alice");
  assert.equal(welcomeName("1 alice"), null);
  assert.equal(welcomeName("2 alice 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 0 0 0 UTC"), null);
  assert.equal(welcomeName("bob says: 1 2 3"), null);
});
