"""The real server with its web client on an ephemeral HTTP port (SQLite: the page talks to
the lobby, whose storage the store tests cover on both databases), and a real browser:
Debian's chromium driven by Playwright, never a downloaded browser."""
from __future__ import annotations

import contextlib
import inspect
import os
import pathlib
import shutil
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from fibs_server.lobby.services.bot_players import BotConfig
from tests.conftest import skip_unless_ci
from tests.e2e.conftest import ServerHarness
from tests.waiting import DEADLINE

try:
    from playwright.async_api import Browser, expect
    from playwright.async_api import Error as PlaywrightError
except ImportError:  # the browser tests then skip (the `browser` fixture)
    pass
else:
    # What a page must show, it may take tests/waiting.py's ceiling to show on a busy machine
    # (Playwright's own default is 5 s); a passing test waits far less.
    expect.set_options(timeout=DEADLINE * 1000)

CHROMIUM = "/usr/bin/chromium"
# Screenshots the browser tests take, kept after the run (gitignored); CI may point elsewhere.
ARTIFACTS = pathlib.Path(os.environ.get("FIBS_TEST_ARTIFACTS", "test-artifacts")) / "web"


class WebHarness(ServerHarness):
    """The e2e harness (scripted dice, telnet clients) with the web client on."""

    def __init__(self, database_url: str, bots: bool = False) -> None:
        super().__init__(database_url)
        self.config.http_port = 0
        if bots:
            self.config.bots = BotConfig(think_time=0, workers=1, time_budget=30)


# A test here runs on the session's event loop, and so do its servers: one chromium (Playwright's
# objects belong to the loop that made them) then serves all the browser tests of the process.
# A server is still each test's own where the test takes a function-scoped one.
HERE = pathlib.Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if (item.path.is_relative_to(HERE)
                and inspect.iscoroutinefunction(getattr(item, "obj", None))):
            item.add_marker(pytest.mark.asyncio(loop_scope="session"), append=False)


@pytest_asyncio.fixture(loop_scope="session")
async def web(tmp_path):
    harness = await WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}").start()
    yield harness
    await harness.stop()


@pytest_asyncio.fixture(loop_scope="session")
async def web_with_bots(tmp_path):
    harness = await WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}", bots=True).start()
    yield harness
    await harness.stop()


@pytest_asyncio.fixture(loop_scope="session")
async def web_on_a_fake_clock(tmp_path):
    """The web harness on a clock that moves only when the test says (timed matches, the
    tournament director's no-show times)."""
    harness = WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}")
    harness.use_fake_clock()
    await harness.start()
    yield harness
    await harness.stop()


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    if not os.path.exists(CHROMIUM):
        skip_unless_ci(f"the browser tests need Debian's chromium at {CHROMIUM} "
                       "(apt-get install chromium; .ci/run installs it)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        skip_unless_ci("the browser tests need Playwright for Python (the test extras)")
    async with async_playwright() as playwright:
        # This machine's network is closed: no background requests to wait for or fail.
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-quic"])
        # An uncaught error in any page of the test fails it, whatever the page showed.
        errors: list[str] = []
        new_context = browser.new_context

        async def watched_context(**options):
            context = await new_context(**options)
            context.on("weberror", lambda error: errors.append(f"{error.page and error.page.url}: "
                                                               f"{error.error}"))
            return context

        browser.new_context = watched_context
        browser.page_errors = errors  # type: ignore[attr-defined]
        yield browser
        await browser.close()
        assert not errors, f"errors in the page: {errors}"


# A browser test that failed leaves what each of its pages showed (a screenshot and the HTML)
# under failed/ in the artifacts: a wait that ran out says what was missing, not what was there.
FAILED_CALL = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED_CALL] = True
    return report


async def keep_failed_pages(browser: Browser, test_name: str) -> None:
    folder = ARTIFACTS / "failed"
    folder.mkdir(parents=True, exist_ok=True)
    pages = [page for context in browser.contexts for page in context.pages]
    for number, page in enumerate(pages):
        stem = folder / f"{test_name}-{number}"
        try:
            await page.screenshot(path=f"{stem}.png", full_page=True, timeout=10_000)
            pathlib.Path(f"{stem}.html").write_text(await page.content())
        except PlaywrightError:  # a page that crashed or hangs has nothing more to give
            pass


@pytest_asyncio.fixture(loop_scope="session")
async def browser(shared_browser: Browser, request: pytest.FixtureRequest):
    """The shared chromium, as if the test's own: the contexts (tabs) the test opened are
    closed after it, and an error in any of their pages fails it. Launching chromium (and
    Playwright's driver) costs about as much CPU as a test's own steps."""
    errors: list[str] = shared_browser.page_errors  # type: ignore[attr-defined]
    before = set(shared_browser.contexts)
    errors_before = len(errors)
    yield shared_browser
    if request.node.stash.get(FAILED_CALL, False):
        await keep_failed_pages(shared_browser, request.node.name)
    for context in shared_browser.contexts:
        if context not in before:
            await context.close()
    new_errors = errors[errors_before:]
    del errors[errors_before:]
    assert not new_errors, f"errors in the page: {new_errors}"


# One browser for all the tests (the `browser` fixture's), and one server for a module's tests
# where they share it; each test closes the contexts it opened.
@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_browser():
    async with chromium() as browser:
        yield browser


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def module_web_with_bots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    harness = await WebHarness(f"sqlite:///{folder / 'fibs-web.db'}", bots=True).start()
    yield harness
    await harness.stop()


@pytest.fixture
def artifacts() -> pathlib.Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def node() -> str:
    path = shutil.which("node")
    if path is None:
        skip_unless_ci("the page's unit tests need node (its built-in test runner)")
    return path
