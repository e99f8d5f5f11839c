"""Drives a live leaderboard page in headless Chromium for BrowserTests.swift.

Usage: leaderboard.py URL SCREENSHOT [CHROMIUM CHROMEDRIVER]
Prints `loaded` once the page shows its board, then reads commands on stdin, one per line:
  expect NAME,NAME,...  waits up to 10 s for the board to list these players in this order,
                        without the page having reloaded; prints `ok ...` or `fail ...`
  shot                  saves a screenshot to SCREENSHOT and prints `ok`
  quit                  closes the browser
"""
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def board(driver):
    """The board's rows as (position, name, score), read in one step: the page may swap the board any time."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#board tbody tr')).map(function (row) {"
        " return [row.querySelector('.pos').textContent.trim(), row.querySelector('.name a').textContent.trim(),"
        " row.querySelector('.score').textContent.trim()]; });")


def main():
    url, screenshot = sys.argv[1], sys.argv[2]
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=390,844",
                     "--force-device-scale-factor=2"):
        options.add_argument(argument)
    options.binary_location = sys.argv[3] if len(sys.argv) > 4 else "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(sys.argv[4] if len(sys.argv) > 4 else "/usr/bin/chromedriver"), options=options)
    try:
        driver.set_window_size(390, 844)
        driver.get(url)
        driver.find_element(By.ID, "board")
        # Marks this document: a reload would lose the mark.
        driver.execute_script("window.hyzerMark = 'kept';")
        print("loaded", flush=True)
        for line in sys.stdin:
            command, _, argument = line.strip().partition(" ")
            if command == "expect":
                wanted = argument.split(",")
                deadline = time.monotonic() + 10
                seen = []
                while time.monotonic() < deadline:
                    seen = board(driver)
                    if [name for _, name, _ in seen] == wanted:
                        break
                    time.sleep(0.05)
                kept = driver.execute_script("return window.hyzerMark;") == "kept"
                ok = [name for _, name, _ in seen] == wanted and kept
                rows = ";".join(" ".join(row) for row in seen)
                print(("ok " if ok else "fail ") + rows + ("" if kept else " (the page reloaded)"), flush=True)
            elif command == "shot":
                driver.save_screenshot(screenshot)
                print("ok", flush=True)
            elif command == "quit":
                break
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
