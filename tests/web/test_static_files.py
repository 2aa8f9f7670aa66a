"""The page's files as a browser gets them: gzipped when it takes gzip, under addresses of this
release (kept by the browser for good) with the page itself asked for each time, so that a new
release is fetched at once; and only the chosen language's catalogues fetched."""
from __future__ import annotations

import gzip
import re
import shutil

import aiohttp
from multidict import CIMultiDict
from playwright.async_api import expect

from fibs_server.net.http import STATIC, load_static_files
from tests.web.test_browser import TIMEOUT

FOR_GOOD = "public, max-age=31536000, immutable"
TEXT_FILES = sorted(path.name for path in STATIC.iterdir()
                    if path.is_file() and path.suffix in (".js", ".css", ".html", ".json"))


async def raw_get(http: aiohttp.ClientSession, url: str, **headers: str
                  ) -> tuple[int, CIMultiDict[str], bytes]:
    async with http.get(url, headers=headers) as answer:
        return answer.status, answer.headers.copy(), await answer.read()


async def test_this_releases_files_are_gzipped_and_kept_for_good(web):
    async with aiohttp.ClientSession(auto_decompress=False) as http:
        status, headers, body = await raw_get(http, web.url, **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["Cache-Control"] == "no-cache"
        assert headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
        page = gzip.decompress(body).decode()
        version = re.search(r'<script type="module" src="/static/([0-9a-f]{16})/app\.js">',
                            page).group(1)
        assert re.findall(r'"/static/([^"]*)/', page) == [version] * 3  # two styles, a script
        for name in TEXT_FILES:
            status, zipped, body = await raw_get(http, f"{web.url}static/{version}/{name}",
                                                 **{"Accept-Encoding": "gzip, br"})
            assert status == 200 and zipped["Cache-Control"] == FOR_GOOD, name
            own = (STATIC / name).read_bytes()
            if len(own) > 200:  # gzip makes a few bytes larger: those go as they are
                assert zipped["Content-Encoding"] == "gzip" and len(body) < len(own), name
                assert name.endswith(".html") or gzip.decompress(body) == own, name
        # Without gzip (or refused with q=0): the file as it is, with a tag of its own.
        url = f"{web.url}static/{version}/app.js"
        _, zipped, _ = await raw_get(http, url, **{"Accept-Encoding": "gzip"})
        for refused in ("identity", "gzip;q=0, identity"):
            status, plain, body = await raw_get(http, url, **{"Accept-Encoding": refused})
            assert status == 200 and body == (STATIC / "app.js").read_bytes()
            assert "Content-Encoding" not in plain and plain["ETag"] != zipped["ETag"]
        for tag in (zipped["ETag"], plain["ETag"]):
            status, again, body = await raw_get(http, url, **{"If-None-Match": tag})
            assert (status, body, again["Cache-Control"]) == (304, b"", FOR_GOOD)
        # A page of an earlier release gets today's file, asked for each time.
        status, headers, body = await raw_get(http, f"{web.url}static/0123456789abcdef/app.js",
                                              **{"Accept-Encoding": "identity"})
        assert (status, headers["Cache-Control"]) == (200, "no-cache")
        assert body == (STATIC / "app.js").read_bytes()
        for missing in (f"static/{version}/nothing.js", "static/nothing.js"):
            status, _, _ = await raw_get(http, web.url + missing)
            assert status == 404, missing


def test_a_changed_file_makes_a_new_release_address(tmp_path):
    folder = tmp_path / "static"
    shutil.copytree(STATIC, folder)
    before = load_static_files(folder)
    assert load_static_files(folder).version == before.version  # the same files, the same
    with open(folder / "board.css", "a") as css:
        css.write("/* a new release */\n")
    after = load_static_files(folder)
    assert after.version != before.version
    assert f"/static/{after.version}/board.css".encode() in after.files["index.html"].body
    assert before.version.encode() not in after.files["index.html"].body


async def test_the_page_fetches_its_own_languages_words_only(web, browser):
    for locale, own, other in (("es-ES", "es", "en"), ("en-GB", "en", "es")):
        context = await browser.new_context(locale=locale)
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT)
        fetched: list[str] = []
        page.on("request", lambda request: fetched.append(request.url.rsplit("/", 1)[1]))
        await page.goto(web.url)
        await expect(page.locator("#language")).to_have_value(own)
        await expect(page.locator("#login-form button")).to_be_enabled()
        catalogues = sorted(name for name in fetched if re.match(r"(messages|refusals)_", name))
        assert catalogues == [f"messages_{own}.js", f"refusals_{own}.js"], fetched
        # Another language chosen: its words come then.
        await page.select_option("#language", other)
        await expect(page.locator("#login-form h2")).to_have_text(
            "Log in" if other == "en" else "Entrar")
        assert f"messages_{other}.js" in fetched and f"refusals_{other}.js" in fetched
        await context.close()
