// SPDX-License-Identifier: GPL-2.0
/*
 * Drives headless Chromium (Debian's /usr/bin/chromium) through
 * playwright-core over a flame graph page stacktap wrote, and checks it
 * through the DOM:
 *
 *   node flamegraph_check.js PAGE SCREENSHOT EXPECT_JSON
 *
 * EXPECT_JSON: {"total": N,
 *               "frames": [[name, value], ...]      widths: value / total of the root's
 *               "kinds": {name: "k"|"u"|"i"|"m"},  class of each named frame
 *               "search": {"re": RE, "names": [...], "matched": "Matched: ..."},
 *               "zoom": name,                      click it: it spans the graph
 *               "narrow": "[N narrow frames]",     a merged frame that must exist
 *               "diff": {"grew": [names], "shrank": [names]}}
 * Prints one "ok ..." or "FAIL ..." line per check; exits 1 on any FAIL.
 */
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

let failed = 0;
function check(name, ok, detail) {
	console.log((ok ? "ok   " : "FAIL ") + name + (ok || !detail ? "" : ": " + detail));
	if (!ok) failed++;
}

/* Every drawn frame: name, classes, x, width, fill. */
function frames(page) {
	return page.$$eval("#fg .frame", (gs) => gs.map((g) => {
		const r = g.querySelector("rect");
		return { name: g.dataset.name, cls: g.getAttribute("class"), value: +g.dataset.value,
			 x: +r.getAttribute("x"), w: +r.getAttribute("width"), fill: r.getAttribute("fill"),
			 match: g.classList.contains("match"), ancestor: g.classList.contains("ancestor") };
	}));
}

function rgb(fill) {
	const m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(fill);
	return m ? [+m[1], +m[2], +m[3]] : null;
}

async function checkWidths(page, want) {
	const fs0 = await frames(page);
	const root = fs0.find((f) => f.name === "all");
	check("root frame drawn", !!root);
	if (!root) return;
	for (const [name, value] of want.frames || []) {
		const w = fs0.filter((f) => f.name === name).reduce((s, f) => s + f.w, 0);
		const got = w / root.w, exp = value / want.total;
		check("width of " + name + " is " + value + "/" + want.total + " of the root",
		      Math.abs(got - exp) < 0.0005, "got " + got.toFixed(5) + ", want " + exp.toFixed(5));
	}
	for (const [name, kind] of Object.entries(want.kinds || {})) {
		const f = fs0.filter((x) => x.name === name);
		check(name + " drawn as kind " + kind,
		      f.length > 0 && f.every((x) => x.cls.split(" ").includes(kind)),
		      f.map((x) => x.cls).join("; ") || "not drawn");
	}
	if (want.kinds && Object.values(want.kinds).includes("k") && !want.diff) {
		const fills = (k) => new Set(fs0.filter((f) => f.cls.split(" ").includes(k)).map((f) => f.fill));
		const k = fills("k"), u = fills("u");
		check("kernel and user frames coloured apart",
		      k.size > 0 && u.size > 0 && [...k].every((c) => !u.has(c)));
	}
	if (want.narrow)
		check("narrow frames merged into " + want.narrow,
		      fs0.some((f) => f.name === want.narrow && f.cls.split(" ").includes("x")),
		      fs0.map((f) => f.name).join(", "));
	if (want.diff) {
		for (const n of want.diff.grew) {
			const c = rgb(fs0.find((f) => f.name === n).fill);
			check(n + " coloured as grown (red)", c && c[0] === 255 && c[2] < 255, String(c));
		}
		for (const n of want.diff.shrank) {
			const c = rgb(fs0.find((f) => f.name === n).fill);
			check(n + " coloured as shrunk (blue)", c && c[2] === 255 && c[0] < 255, String(c));
		}
	}
}

async function checkTooltip(page, want) {
	if (!want.frames || !want.frames.length) return;
	const [name, value] = want.frames[0];
	await page.hover(`#fg .frame[data-name="${name}"] rect`);
	const tip = await page.textContent("#tip");
	const pct = (100 * value / want.total).toFixed(2);
	check("tooltip of " + name + " says " + value + " (" + pct + "%)",
	      tip.includes(name) && tip.includes(value + " ") && tip.includes("(" + pct + "%)"), tip);
}

async function checkSearch(page, want) {
	if (!want.search) return;
	await page.fill("#search", want.search.re);
	await page.press("#search", "Enter");
	const fs0 = await frames(page);
	const got = [...new Set(fs0.filter((f) => f.match).map((f) => f.name))].sort();
	check("search " + want.search.re + " highlights " + want.search.names.join(","),
	      JSON.stringify(got) === JSON.stringify([...want.search.names].sort()), got.join(","));
	const matched = await page.textContent("#matched");
	check("search shows '" + want.search.matched + "'", matched === want.search.matched, matched);
	await page.click("#clear");
	const after = await frames(page);
	check("clearing the search removes the highlight", after.every((f) => !f.match));
}

async function checkZoom(page, want) {
	if (!want.zoom) return;
	const before = await frames(page);
	const rootW = before.find((f) => f.name === "all").w;
	await page.click(`#fg .frame[data-name="${want.zoom}"] rect`);
	const fs0 = await frames(page);
	const z = fs0.filter((f) => f.name === want.zoom && !f.ancestor);
	check("click on " + want.zoom + " zooms: it spans the graph",
	      z.length === 1 && Math.abs(z[0].w - rootW) < 0.01 && z[0].x === 0, JSON.stringify(z));
	check("zoom keeps the ancestors, dimmed", fs0.some((f) => f.name === "all" && f.ancestor));
	check("zoom label names " + want.zoom, (await page.textContent("#zoomed")) === "zoomed: " + want.zoom);
	await page.click("#reset");
	const back = await frames(page);
	check("reset shows the whole graph again",
	      back.length === before.length && back.every((f) => !f.ancestor));
}

(async () => {
	const [file, shot, expect] = process.argv.slice(2);
	const want = JSON.parse(expect);
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "stacktap-chromium."));
	let ctx;
	try {
		ctx = await chromium.launchPersistentContext(profile, {
			executablePath: "/usr/bin/chromium",
			headless: true,
			args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--no-first-run"],
			viewport: { width: 1280, height: 800 },
		});
		const page = await ctx.newPage();
		const errors = [];
		page.on("pageerror", (e) => errors.push(String(e)));
		page.on("requestfailed", (r) => errors.push("request " + r.url()));
		await page.goto("file://" + path.resolve(file));
		await page.waitForSelector("#fg .frame");
		await page.screenshot({ path: shot, fullPage: true });
		check("page loads without script errors or requests", errors.length === 0, errors.join("; "));
		await checkWidths(page, want);
		await checkTooltip(page, want);
		await checkSearch(page, want);
		await checkZoom(page, want);
	} catch (e) {
		check("browser run", false, String(e));
	} finally {
		if (ctx) await ctx.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
	process.exit(failed ? 1 : 0);
})();
