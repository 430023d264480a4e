"""Drives the HybridAI web chat in Debian's Chromium (headless, through chromium-driver) with Selenium.

Run by ChatBrowserTests (Swift), which starts the server with a scripted model whose answers depend
on the message (see PageTestModel there). Prints one JSON object on its last line: the checks'
measurements. Any failed check raises, so the exit status is not 0.

    python chat_page_check.py --url http://127.0.0.1:PORT --photo photo.png --big big.bin --html page.html --screenshots DIR
    python chat_page_check.py --scenario key --key SECRET --url http://127.0.0.1:PORT --screenshots DIR
    python chat_page_check.py --scenario restart --url http://127.0.0.1:PORT --screenshots DIR
    python chat_page_check.py --scenario mcp-photo --url http://127.0.0.1:PORT --screenshots DIR
        (prints STREAMING while an answer streams: the caller then kills and restarts the server)
"""
import argparse
import json
import os
import shutil
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

parser = argparse.ArgumentParser()
parser.add_argument("--scenario", default="main", choices=["main", "key", "restart", "photo-on-device", "mcp-photo"])
parser.add_argument("--url", required=True)
parser.add_argument("--photo")
parser.add_argument("--big")
parser.add_argument("--html")
parser.add_argument("--key")
parser.add_argument("--screenshots", required=True)
args = parser.parse_args()

results = {}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1200,900", "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # failed loads (a missing icon) show there
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


driver = make_driver()
# Generous: under a full test run on two cores the browser and the server share the CPU with
# everything else; these waits are for things to happen, not for how fast.
wait = WebDriverWait(driver, 120)


def shot(name):
    driver.save_screenshot(os.path.join(args.screenshots, name + ".png"))


def model_messages():
    return driver.find_elements(By.CSS_SELECTOR, ".message.model")


def send(text):
    box = driver.find_element(By.ID, "input")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def wait_for_answer(count):
    """Waits until `count` model messages have a badge or an error line."""
    wait.until(lambda d: len(model_messages()) >= count and
               model_messages()[count - 1].find_elements(By.CSS_SELECTOR, ".badge, .error-text"))
    return model_messages()[count - 1]


# WCAG's contrast ratio between an element's text and its background (both opaque here).
CONTRAST = """
const luminance = (color) => {
  const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map((v) => {
    v = Number(v) / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const style = getComputedStyle(document.getElementById(arguments[0]));
const [a, b] = [luminance(style.color), luminance(style.backgroundColor)];
return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
"""


def check_button_contrast(scheme):
    for button in ("send", "stop"):
        ratio = driver.execute_script(CONTRAST, button)
        results[f"{button}Contrast-{scheme}"] = round(ratio, 2)
        check(ratio >= 4.5, f"the {button} button's text is readable in {scheme} mode (contrast {ratio:.2f}, want 4.5)")


def ready():
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")


def key_scenario():
    """The server wants a key: the page asks, a wrong one is asked for again, the right one works."""
    driver.get(args.url + "/")
    dialog = driver.find_element(By.ID, "key-dialog")
    wait.until(lambda d: dialog.get_attribute("open") is not None)
    shot("08-key-dialog")
    field = driver.find_element(By.ID, "key-input")
    field.send_keys(Keys.ESCAPE)   # nothing works without a key: Escape does not close the dialog
    time.sleep(0.2)
    check(dialog.get_attribute("open") is not None, "Escape leaves the key dialog open")
    field.send_keys("wrong-key")
    field.send_keys(Keys.ENTER)
    wait.until(lambda d: "not accepted" in d.find_element(By.ID, "key-message").text)
    check(dialog.get_attribute("open") is not None, "a wrong key is asked for again")
    field.send_keys(args.key)
    field.send_keys(Keys.ENTER)
    ready()
    send("markdown please")
    answer = wait_for_answer(1)
    check("page-model-1" in answer.find_element(By.CSS_SELECTOR, ".badge").text, "answered with the key")
    check(driver.execute_script("return localStorage.getItem('hybridai.key')") == args.key, "the key is remembered")
    # A tool's picture and sound load through the key cookie: no URL on the page carries the key.
    send("paint and speak")
    answer = wait_for_answer(2)
    wait.until(lambda d: d.execute_script(
        "const i = arguments[0].querySelector('img'); return i && i.complete && i.naturalWidth > 0", answer))
    urls = driver.execute_script(
        "return [...document.querySelectorAll('img[src], audio[src], video[src], a[href]')].map(e => e.src || e.href)")
    check(not [u for u in urls if "key=" in u], f"no URL carries the key: {urls}")
    check(driver.execute_script("return document.cookie").find("hybridai_chat_key") < 0, "the key cookie is HttpOnly")


def photo_on_device_scenario():
    """The on-device model reads images (it has a projector): a photo is answered here, not in the cloud."""
    driver.get(args.url + "/")
    ready()
    driver.find_element(By.ID, "file-input").send_keys(args.photo)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pending-files img"))
    wait.until(lambda d: "read on this device" in d.find_element(By.ID, "notice").text)
    send("Describe.")
    # The on-device answer takes turns on the process's one llama thread with every other on-device
    # test of the suite: under a full run its 32 tokens took two minutes once.
    WebDriverWait(driver, 600).until(lambda d: model_messages() and
                                     model_messages()[0].find_elements(By.CSS_SELECTOR, ".badge, .error-text"))
    answer = model_messages()[0]
    check(not answer.find_elements(By.CSS_SELECTOR, ".error-text"), f"answered without an error: {answer.text}")
    badge = answer.find_element(By.CSS_SELECTOR, ".badge").text
    check("on-device" in badge and "image/png" not in badge and "20 image" in badge,
          f"the badge says the device saw the photo, and its tokens: {badge}")
    shot("10-photo-on-device")
    return badge


def mcp_photo_scenario():
    """An MCP server's tool in the chat: a switch per server, on by default; its picture is shown in
    the answer; switched off, its tools are not offered (the model answers without calling it)."""
    driver.get(args.url + "/")
    ready()
    switches = driver.find_elements(By.CSS_SELECTOR, "#tool-groups input[type=checkbox]")
    check(driver.find_element(By.ID, "tool-groups").is_displayed() and [s.get_attribute("value") for s in switches] == ["own"],
          f"one switch, for the MCP server 'own': {[s.get_attribute('value') for s in switches]}")
    check(switches[0].is_selected(), "a server's tools are on by default")
    send("show the photo")
    answer = wait_for_answer(1)
    wait.until(lambda d: d.execute_script(
        "const i = arguments[0].querySelector('img'); return i && i.complete && i.naturalWidth > 0", answer))
    width = driver.execute_script("return arguments[0].querySelector('img').naturalWidth", answer)
    check("photo" in answer.text, f"the tool's call is shown: {answer.text}")
    shot("11-mcp-photo")
    switches[0].click()
    send("show the photo")
    answer = wait_for_answer(2)
    check(not answer.find_elements(By.CSS_SELECTOR, "img") and "No photo tool" in answer.text,
          f"with the server switched off its tool is not offered: {answer.text}")
    return width


def server_is_back(deadline_seconds=120):
    deadline = time.monotonic() + deadline_seconds
    while True:
        try:
            urllib.request.urlopen(args.url + "/v1/chat/config", timeout=2).read()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def restart_scenario():
    """The server dies mid-answer and comes back: the page says the answer was lost; the
    conversation is as it was before that answer."""
    driver.get(args.url + "/")
    ready()
    send("Say hello.")
    wait_for_answer(1)
    send("Write a very long story about a dragon and a knight, in ten chapters.")
    wait.until(lambda d: len(model_messages()) >= 2 and model_messages()[1].find_element(By.CSS_SELECTOR, ".body").text)
    print("STREAMING", flush=True)
    wait.until(lambda d: "connection was lost" in model_messages()[1].text)
    shot("09-connection-lost")
    server_is_back()
    driver.refresh()
    ready()
    wait.until(lambda d: len(model_messages()) >= 1)
    users = len(driver.find_elements(By.CSS_SELECTOR, ".message.user"))
    check(users == 1 and len(model_messages()) == 1,
          f"after the restart the conversation holds the first turn only ({users} user, {len(model_messages())} model)")
    send("Say hello again.")
    wait_for_answer(2)
    check(model_messages()[1].find_elements(By.CSS_SELECTOR, ".badge"), "the restarted server answers")


try:
    if args.scenario == "restart":
        restart_scenario()
        print(json.dumps({"scenario": "restart"}))
        raise SystemExit(0)
    if args.scenario == "photo-on-device":
        print(json.dumps({"scenario": "photo-on-device", "badge": photo_on_device_scenario()}))
        raise SystemExit(0)
    if args.scenario == "mcp-photo":
        print(json.dumps({"scenario": "mcp-photo", "imageNaturalWidth": mcp_photo_scenario()}))
        raise SystemExit(0)
    if args.scenario == "key":
        key_scenario()
        print(json.dumps({"scenario": "key"}))
        raise SystemExit(0)
    driver.get(args.url + "/")
    ready()
    shot("01-empty")
    modes = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#mode option:not([disabled])")]
    check(len(modes) == 4 and driver.find_element(By.ID, "mode").get_attribute("value") == "prefer-on-device",
          f"the four modes, prefer on-device first: {modes}")

    # Empty message: a notice, nothing sent.
    driver.find_element(By.ID, "input").send_keys(Keys.ENTER)
    notice = driver.find_element(By.ID, "notice")
    check(notice.is_displayed() and "message" in notice.text.lower(), "an empty message is refused with a notice")
    # The attach button is reached from the message box with the keyboard.
    driver.find_element(By.ID, "input").send_keys(Keys.SHIFT, Keys.TAB)
    check(driver.execute_script("return document.activeElement.id") == "attach", "Shift+Tab from the message box reaches +")

    # 1. Markdown answer, streamed; Shift+Enter makes a new line instead of sending.
    box = driver.find_element(By.ID, "input")
    box.send_keys("markdown please")
    box.send_keys(Keys.SHIFT, Keys.ENTER)
    box.send_keys("second line")
    check("\n" in box.get_attribute("value"), "Shift+Enter adds a new line")
    box.send_keys(Keys.ENTER)
    answer = wait_for_answer(1)
    check(len(answer.find_elements(By.CSS_SELECTOR, ".body > ul > li")) == 2, "a Markdown list is a list")
    headings = answer.find_elements(By.CSS_SELECTOR, ".body h4")
    check(headings and headings[0].text == "Steps", "a heading with its text right under it is a heading")
    following = driver.execute_script("const h = arguments[0]; return h.nextElementSibling && h.nextElementSibling.textContent", headings[0])
    check(following == "Follow these:", f"and its text a paragraph after it: {following!r}")
    starts = driver.execute_script("return [...arguments[0].querySelectorAll('.body ol')].map((l) => l.start)", answer)
    check(starts == [1, 2, 4], f"a numbered list whose items are apart goes on counting (starts {starts})")
    nested = [li.text for li in answer.find_elements(By.CSS_SELECTOR, ".body ol > li > ul > li")]
    check(nested == ["part a", "part b", "after a blank", "still inside"], f"an indented list is inside its item: {nested}")
    after_blank = [li.text for li in answer.find_elements(By.CSS_SELECTOR, ".body ol[start='4'] > li > ul > li")]
    check(after_blank == ["after a blank", "still inside"], f"also after a blank line: {after_blank}")
    items = driver.execute_script("return [...arguments[0].querySelectorAll('.body ol')][1].children.length", answer)
    check(items == 2, f"the item after the inner list is in the outer list ({items} items)")
    check(answer.find_elements(By.CSS_SELECTOR, ".body pre code"), "a code block is a code block")
    leading = driver.execute_script(
        "return [...arguments[0].querySelectorAll('.body p')].filter((p) => p.firstChild?.nodeName === 'BR').length", answer)
    check(leading == 0, f"no paragraph starts with an empty line (the blank line after a code block arrived late): {leading}")
    links = answer.find_elements(By.CSS_SELECTOR, ".body a")
    check(links and links[0].get_attribute("href") == "https://example.com/", "a link is a link")
    badge = answer.find_element(By.CSS_SELECTOR, ".badge").text
    check("page-model-1" in badge and "on-device" in badge and "tokens" in badge, f"the badge names the model: {badge}")
    results["firstPaintEpochMs"] = driver.execute_script("return window.__hybridFirstPaintEpoch || null")
    shot("02-markdown")
    failures = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not failures, f"the page loads without errors (an icon included): {failures}")

    # 2. A tool that makes audio and an image: progress bar, playable audio, decoded image.
    send("paint and speak")
    answer = wait_for_answer(2)
    check(answer.find_elements(By.CSS_SELECTOR, ".tool progress"), "tool activity has a progress bar")
    wait.until(lambda d: d.execute_script(
        "const i = arguments[0].querySelector('img'); return i && i.complete && i.naturalWidth > 0", answer))
    wait.until(lambda d: d.execute_script(
        "const a = arguments[0].querySelector('audio'); return a && a.readyState >= 1 && a.duration > 0", answer))
    results["audioDuration"] = driver.execute_script("return arguments[0].querySelector('audio').duration", answer)
    results["imageNaturalWidth"] = driver.execute_script("return arguments[0].querySelector('img').naturalWidth", answer)
    shot("03-tool-artifacts")

    # 3. Model text and a file name with markup stay inert text.
    send("inject")
    answer = wait_for_answer(3)
    check(driver.execute_script("return window.__xss === undefined"), "no injected script ran")
    check(not driver.find_elements(By.CSS_SELECTOR, "#messages img[src='x']"), "no injected <img> element")
    check("<img src=x onerror=" in answer.text, "the markup is shown as text")
    captions = [c.text for c in answer.find_elements(By.CSS_SELECTOR, ".file .caption")]
    check(any("<img src=x onerror=" in c for c in captions), f"the file name is shown as text: {captions}")

    # 4. Stop: the answer ends within a second and is not saved.
    send("slow")
    wait.until(lambda d: len(model_messages()) >= 4)
    # The model thinks 1.5 s before its first word: the answer shows it is on its way.
    check(model_messages()[3].find_elements(By.CSS_SELECTOR, ".thinking"), "a thinking indicator before the first word")
    shot("03b-thinking")
    wait.until(lambda d: model_messages()[3].find_element(By.CSS_SELECTOR, ".body").text)
    check(not model_messages()[3].find_elements(By.CSS_SELECTOR, ".thinking"), "the indicator goes when the answer comes")
    stop = driver.find_element(By.ID, "stop")
    check(stop.is_displayed(), "the stop button shows while answering")
    clicked = time.monotonic()
    stop.click()
    wait.until(lambda d: model_messages()[3].find_elements(By.CSS_SELECTOR, ".error-text"))
    results["stopSeconds"] = time.monotonic() - clicked
    # The answer would run 40 s: ending long before that shows Stop stopped it. How fast is printed by
    # the Swift test (about 0.1 s here; a timing bound would fail on a loaded machine, not on a bug).
    check(results["stopSeconds"] < 20.0, f"stopped long before the answer's end ({results['stopSeconds']:.3f} s)")
    words_at_stop = len(model_messages()[3].find_element(By.CSS_SELECTOR, ".body").text.split())
    time.sleep(0.3)
    check(len(model_messages()[3].find_element(By.CSS_SELECTOR, ".body").text.split()) == words_at_stop,
          "no text arrives after the stop")
    check("Stopped" in model_messages()[3].text, "the answer says it was stopped")

    # 5. An attached photo: thumbnail before sending, shown in the transcript after.
    driver.find_element(By.ID, "file-input").send_keys(args.photo)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pending-files img"))
    shot("04-attachment-pending")
    send("What is in this photo?")
    answer = wait_for_answer(5)
    users = driver.find_elements(By.CSS_SELECTOR, ".message.user")
    wait.until(lambda d: d.execute_script(
        "const i = arguments[0].querySelector('img'); return i && i.complete && i.naturalWidth > 0", users[-1]))
    check("A photo" in answer.text, "the cloud model saw the photo")
    badge = answer.find_element(By.CSS_SELECTOR, ".badge").text
    check("cloud" in badge and "page-cloud-1" in badge and "image/png" in badge,
          f"the badge says the cloud answered because the on-device model cannot read image/png: {badge}")
    shot("04b-photo-fallback")

    # A file of a kind no model takes: the server's reason, shown.
    driver.find_element(By.ID, "file-input").send_keys(args.html)
    wait.until(lambda d: "text/html" in d.find_element(By.ID, "notice").text)

    # 6. A file larger than the server takes: a clear notice, nothing uploaded.
    driver.execute_script("document.getElementById('notice').hidden = true")
    driver.find_element(By.ID, "file-input").send_keys(args.big)
    wait.until(lambda d: "takes files up to" in d.find_element(By.ID, "notice").text)
    check(not driver.find_elements(By.CSS_SELECTOR, "#pending-files .pending"), "the big file is not attached")

    # 7. A 2,000-token answer streams incrementally.
    started = time.monotonic()
    send("long")
    answer = wait_for_answer(6)
    results["longAnswerSeconds"] = time.monotonic() - started
    results["longAnswerWords"] = len(answer.find_element(By.CSS_SELECTOR, ".body").text.split())
    check(results["longAnswerWords"] >= 2000, f"the whole long answer is shown ({results['longAnswerWords']} words)")
    cut = answer.find_elements(By.CSS_SELECTOR, ".cut-off")
    check(cut and "length limit" in cut[0].text, "an answer ended by the length limit says it was cut off")

    # 8. Reload restores the session (the stopped answer was not saved).
    before = len(model_messages())
    driver.refresh()
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    wait.until(lambda d: len(model_messages()) >= before - 1)
    results["messagesAfterReload"] = len(model_messages())
    results["userMessagesAfterReload"] = len(driver.find_elements(By.CSS_SELECTOR, ".message.user"))
    check(driver.find_elements(By.CSS_SELECTOR, ".message.user img"), "the attached photo is in the restored transcript")
    restored_cuts = [note.text for note in driver.find_elements(By.CSS_SELECTOR, "#messages .cut-off")]
    check(len(restored_cuts) == 1 and "length limit" in restored_cuts[0]
          and model_messages()[-1].find_elements(By.CSS_SELECTOR, ".cut-off"),
          f"the restored long answer (only it) still says it was cut off: {restored_cuts}")
    restored_badges = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#messages .badge")]
    check(restored_badges and all("tokens" in b and ("on-device" in b or "cloud" in b) for b in restored_badges),
          f"restored answers say where they were made and their tokens, as live ones do: {restored_badges}")
    check(any("cloud" in b and "page-cloud-1" in b and "image/png" in b for b in restored_badges),
          f"the restored cloud answer still says why the cloud answered: {restored_badges}")
    check(driver.find_elements(By.CSS_SELECTOR, "#session-list li.active"), "the sidebar marks the open session")
    shot("05-restored")

    # 8b. Rename from the sidebar (the browser's prompt).
    driver.find_element(By.CSS_SELECTOR, "#session-list li.active button[title='Rename']").click()
    WebDriverWait(driver, 30).until(lambda d: d.switch_to.alert)
    alert = driver.switch_to.alert
    alert.send_keys("Renamed by the test")
    alert.accept()
    wait.until(lambda d: d.execute_script(
        "const n = document.querySelector('#session-list li.active .name'); return n && n.textContent") == "Renamed by the test")
    check(driver.find_element(By.ID, "session-title").text == "Renamed by the test", "the header follows the new title")

    # 8c. A conversation made for an attached file and left with nothing said is not kept.
    session_id = driver.execute_script("return location.hash.slice(1)")
    driver.find_element(By.ID, "new-session").click()
    driver.find_element(By.ID, "file-input").send_keys(args.photo)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pending-files img"))
    empty_id = driver.execute_script("return location.hash.slice(1)")
    check(empty_id and empty_id != session_id, "attaching made a conversation for the file")
    driver.find_element(By.ID, "new-session").click()

    def listed_sessions():
        with urllib.request.urlopen(f"{args.url}/v1/chat/sessions") as reply:
            return json.load(reply)["sessions"]
    wait.until(lambda d: empty_id not in [s["id"] for s in listed_sessions()])
    check(not any(s["entryCount"] == 0 for s in listed_sessions()), "no empty conversation is left on the server")

    # 8d. Keyboard: a conversation in the sidebar opens with Enter.
    driver.find_element(By.CSS_SELECTOR, f"#session-list li[data-id='{session_id}'] .name").send_keys(Keys.ENTER)
    wait.until(lambda d: d.execute_script("return location.hash.slice(1)") == session_id and model_messages())

    # 9. The session deleted in another tab: sending says so.
    request = urllib.request.Request(f"{args.url}/v1/chat/sessions/{session_id}", method="DELETE")
    urllib.request.urlopen(request).read()
    send("are you there?")
    wait.until(lambda d: "No chat session" in d.find_element(By.ID, "notice").text)
    box = driver.find_element(By.ID, "input")
    check(box.get_attribute("value") == "are you there?", "a message that was not sent goes back to the composer")
    check(not driver.find_elements(By.XPATH, "//div[contains(@class,'user')]//div[text()='are you there?']"),
          "and is not shown as sent")
    box.clear()

    # 10. Phone width, and dark.
    driver.set_window_size(390, 844)
    # At phone width the sidebar is folded away: open it with ☰, then start a new conversation.
    wait.until(lambda d: d.find_element(By.ID, "toggle-sidebar").is_displayed())
    driver.find_element(By.ID, "toggle-sidebar").click()
    wait.until(lambda d: d.execute_script(
        "return document.getElementById('new-session').getBoundingClientRect().left >= 0"))
    driver.find_element(By.ID, "new-session").click()
    wait.until(lambda d: d.execute_script(
        "return document.getElementById('sidebar').getBoundingClientRect().right <= 0"))
    send("markdown please")
    wait_for_answer(1)
    results["phoneScrollWidth"] = driver.execute_script("return document.documentElement.scrollWidth")
    check(results["phoneScrollWidth"] <= 400, f"no sideways scrolling at phone width ({results['phoneScrollWidth']} px)")
    box = driver.find_element(By.ID, "input")
    for text in ("one line", "three\nshort\nlines", ""):
        driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", box, text)
        overflow = driver.execute_script("return arguments[0].scrollHeight - arguments[0].clientHeight", box)
        check(overflow <= 0, f"the message box fits {text!r} without a scroll bar ({overflow} px over)")
    fits = driver.execute_script("""
        const box = arguments[0], style = getComputedStyle(box);
        const context = document.createElement("canvas").getContext("2d");
        context.font = style.font;
        return [context.measureText(box.placeholder).width,
                box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)];""", box)
    check(fits[0] <= fits[1], f"the placeholder fits on one line at phone width ({fits[0]:.0f} px of text, {fits[1]:.0f} px of room)")
    check_button_contrast("light")
    shot("06-phone")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    driver.set_window_size(1200, 900)
    shot("07-dark")
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    check(background != "rgb(255, 255, 255)", f"dark mode darkens the page ({background})")
    check_button_contrast("dark")

    # 11. Delete from the sidebar (the browser's confirm): the list is empty and says so.
    driver.find_element(By.CSS_SELECTOR, "#session-list li.active button[title='Delete']").click()
    WebDriverWait(driver, 30).until(lambda d: d.switch_to.alert)
    driver.switch_to.alert.accept()
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('#session-list li').length") == 0)
    check(not model_messages(), "the deleted conversation left the page")
finally:
    try:
        shot("zz-last-" + args.scenario)
    except Exception:
        pass
    driver.quit()

print(json.dumps(results))
