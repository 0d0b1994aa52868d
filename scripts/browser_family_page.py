"""Drives the family page in a real headless Chromium, as a family member on a phone would.

Run by the Rust test `family_page::in_a_real_browser_…` (tests/it/family_page.rs), which starts hearth
with its fakes, mints a one-time link and then checks, through the chat's own tools, that every
change made here is seen there:

    python scripts/browser_family_page.py BASE LINK [SCREENSHOT_DIR]

BASE is the server (http://127.0.0.1:PORT), LINK the minted link's path and query. The page is
390 px wide (a phone). With SCREENSHOT_DIR, each tab is saved there as a PNG.

Steps: open the link; add two items to the shopping list; check one off; move the reminder to
2026-12-01 09:30; delete the memory; on a 360 px phone, put 阿公生日聚餐 on the calendar on
2026-12-05 at noon at 欣葉 and move it to the 6th; add a weekly 鋼琴課 from the 9th and call
off the lesson of the 16th alone. Prints one JSON line: {"ok": true, ...}.
"""

import json
import os
import sys

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

TABS = ["lists", "calendar", "reminders", "alerts", "memories", "settings", "quota", "changes"]


def browser():
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=390,1200",
                "--lang=zh-TW", "--disable-dev-shm-usage"]:
        options.add_argument(arg)
    binary = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        options.binary_location = binary
    driver = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    return webdriver.Chrome(service=Service(driver), options=options)


def press(driver, button):
    """Clicks a form's button and waits for the page it leads to."""
    old = driver.find_element(By.TAG_NAME, "html")
    button.click()
    WebDriverWait(driver, 10).until(gone(old))


def gone(element):
    """A wait condition: `element` has left the document. Mid-navigation chromedriver can say so
    with an inspector error ("Node with given id does not belong to the document") rather than
    a stale element; `expected_conditions.staleness_of` takes only the latter."""

    def check(_driver):
        try:
            element.is_enabled()
        except WebDriverException:
            return True
        return False

    return check


def said(driver):
    found = driver.find_elements(By.CSS_SELECTOR, "p.said")
    return found[0].text if found else ""


def add_item(driver, name):
    form = driver.find_elements(By.CSS_SELECTOR, "form.add")[-1]
    form.find_element(By.NAME, "item").send_keys(name)
    press(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    assert "已加入" in said(driver), said(driver)


def fill(driver, field, value):
    """Sets a date or time field as a phone's picker would."""
    driver.execute_script("arguments[0].value = arguments[1]", field, value)


def fits(driver, what):
    """Nothing on the page is wider than the screen."""
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    inner = driver.execute_script("return window.innerWidth")
    assert int(wide) <= int(inner), f"{what} is {wide} px wide on a {inner} px screen"


def calendar(driver, base):
    """Adds 阿公生日聚餐 on the calendar tab and moves it a day later; what the page said."""
    driver.get(base + "/family?tab=calendar&month=2026-12")
    fits(driver, "the calendar tab")
    cells = driver.find_elements(By.CSS_SELECTOR, "table.month td")
    assert min(c.size["width"] for c in cells) >= 40, "a day is wide enough to tap"
    form = driver.find_element(By.XPATH, "//form[input[@name='op' and @value='add']]")
    form.find_element(By.NAME, "title").send_keys("阿公生日聚餐")
    fill(driver, form.find_element(By.NAME, "day"), "2026-12-05")
    fill(driver, form.find_element(By.NAME, "time"), "12:00")
    form.find_element(By.NAME, "place").send_keys("欣葉")
    press(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    assert "已加入行事曆" in said(driver), said(driver)
    driver.get(base + "/family?tab=calendar&month=2026-12")
    marked = driver.find_element(By.CSS_SELECTOR, "td.has a[href='#d-2026-12-05']")
    assert marked.text.startswith("5"), marked.text
    event = driver.find_element(By.XPATH, "//div[@class='event'][contains(., '阿公生日聚餐')]")
    assert "欣葉" in event.text, event.text
    field = event.find_element(By.CSS_SELECTOR, "input[type=datetime-local]")
    fill(driver, field, "2026-12-06T12:00")
    press(driver, field.find_element(By.XPATH, "ancestor::form//button"))
    fits(driver, "the calendar tab after a move")
    moved = said(driver)
    lesson_times(driver, base)
    return moved


def lesson_times(driver, base):
    """Adds a weekly 鋼琴課 and calls off the lesson of the 16th alone."""
    month = base + "/family?tab=calendar&month=2026-12"
    driver.get(month)
    form = driver.find_element(By.XPATH, "//form[input[@name='op' and @value='add']]")
    form.find_element(By.NAME, "title").send_keys("鋼琴課")
    fill(driver, form.find_element(By.NAME, "day"), "2026-12-09")
    fill(driver, form.find_element(By.NAME, "time"), "16:00")
    fill(driver, form.find_element(By.NAME, "repeat"), "weekly")
    press(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    assert "已加入行事曆" in said(driver), said(driver)
    driver.get(month)
    fits(driver, "the times of a weekly lesson")
    one = "//form[input[@name='op' and @value='skip'] and input[@name='day' and @value='{}']]"
    press(driver, driver.find_element(By.XPATH, one.format("2026-12-16") + "//button"))
    assert "已取消 12/16 16:00 這一次" in said(driver), said(driver)
    driver.get(month)
    assert not driver.find_elements(By.XPATH, one.format("2026-12-16")), "the 16th is off"
    assert driver.find_elements(By.XPATH, one.format("2026-12-23")), "the 23rd stays"


def item_row(driver, name):
    for row in driver.find_elements(By.CSS_SELECTOR, "ul.items li"):
        if name in row.find_element(By.CSS_SELECTOR, ".name").text:
            return row
    raise AssertionError(f"{name} is not on the page")


def main():
    base, link = sys.argv[1], sys.argv[2]
    shots = sys.argv[3] if len(sys.argv) > 3 else None
    driver = browser()
    try:
        driver.get(base + link)
        assert driver.current_url.endswith("/family"), driver.current_url
        assert "家庭網頁" in driver.title or "清單" in driver.title, driver.title

        add_item(driver, "衛生紙")
        add_item(driver, "醬油")
        press(driver, item_row(driver, "衛生紙").find_element(By.XPATH, ".//button[text()='✓']"))
        assert "衛生紙" in driver.find_element(By.CSS_SELECTOR, "li.done").text

        driver.get(base + "/family?tab=reminders")
        card = driver.find_element(By.XPATH, "//section[h2[text()='倒垃圾']]")
        field = card.find_element(By.CSS_SELECTOR, "input[type=datetime-local]")
        driver.execute_script("arguments[0].value = arguments[1]", field, "2026-12-01T09:30")
        press(driver, field.find_element(By.XPATH, "ancestor::form//button"))
        moved = said(driver)
        assert "09:30" in moved, driver.find_element(By.TAG_NAME, "main").text

        driver.get(base + "/family?tab=memories")
        # A memory holding a long URL wraps on a 360 px phone: nothing is wider than the screen.
        driver.set_window_size(360, 740)
        fits(driver, "the memories tab")
        peanut = driver.find_element(By.XPATH, "//ul[@class='items']/li[contains(., '花生')]")
        press(driver, peanut.find_element(By.XPATH, ".//button[text()='🗑']"))
        assert "忘記" in said(driver), said(driver)

        event_moved = calendar(driver, base)
        assert "12/06 12:00" in event_moved, event_moved

        if shots:
            os.makedirs(shots, exist_ok=True)
            for tab in TABS:
                driver.get(f"{base}/family?tab={tab}")
                height = driver.execute_script("return document.body.scrollHeight")
                driver.set_window_size(390, max(700, min(int(height) + 40, 2400)))
                driver.save_screenshot(os.path.join(shots, f"{tab}.png"))
        print(json.dumps({"ok": True, "moved": moved, "event_moved": event_moved}, ensure_ascii=False))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
