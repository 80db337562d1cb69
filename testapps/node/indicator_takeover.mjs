// A person at the indicator page, in a real browser (Playwright's core
// driving Debian's Chromium): takes the agent display over, clicks the
// place (X, Y: fractions of the live picture) and types TEXT there, says
// TYPED on stdout, waits for a line on stdin, hands the display back and
// says HANDED. Each step waits for the page to show its result; a step
// that does not happen within 20 s ends the script with its reason (exit 1).
//
//   node indicator_takeover.mjs URL X Y TEXT
import { chromium } from "playwright-core";
import { createInterface } from "node:readline";

const [url, x, y, text] = process.argv.slice(2);
const said = (line) => process.stdout.write(line + "\n");
const nextLine = () => new Promise((resolve) => createInterface({ input: process.stdin }).once("line", resolve));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  page.setDefaultTimeout(20000);
  await page.goto(url);
  // The live picture has arrived.
  await page.waitForFunction(() => {
    const img = document.getElementById("agent-view");
    return img && !img.closest("section").hidden && img.naturalWidth > 0;
  });
  await page.click("#take-over");
  await page.waitForSelector("#hand-back", { state: "visible" });
  said("TAKEN " + (await page.textContent("#takeover-state")));
  const box = await page.locator("#agent-view").boundingBox();
  await page.mouse.click(box.x + Number(x) * box.width, box.y + Number(y) * box.height);
  await page.keyboard.type(text, { delay: 30 });
  said("TYPED");
  await nextLine();
  await page.click("#hand-back");
  await page.waitForSelector("#take-over", { state: "visible" });
  said("HANDED " + (await page.textContent("#takeover-state")));
} catch (e) {
  said("FAILED " + e.message.split("\n")[0]);
  process.exitCode = 1;
} finally {
  await browser.close();
}
