// SPDX-License-Identifier: GPL-2.0
/*
 * Imports a file into speedscope itself (the app the npm package ships, in
 * headless Chromium through playwright-core), exports it back with the
 * app's Export button, and prints what the app understood, one line per
 * distinct stack of each profile:
 *
 *   node speedscope_import.js FILE
 *   -> PROFILE NAME|root;...;leaf|WEIGHT      (weights summed, in the profile's unit)
 *
 * Exit 1 when the app does not import the file.
 */
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

/* Stacks of an exported profile: sampled (samples + weights) or evented (open/close at times). */
function stacks(p, frames) {
	const out = new Map();
	const add = (names, w) => {
		if (!names.length || !w) return;
		const k = names.join(";");
		out.set(k, (out.get(k) || 0) + w);
	};
	if (p.type === "sampled") {
		p.samples.forEach((s, i) => add(s.map((f) => frames[f].name), p.weights[i]));
	} else {
		const open = [];
		let at = p.startValue;
		for (const e of p.events) {
			add(open.map((f) => frames[f].name), e.at - at);
			at = e.at;
			if (e.type === "O") open.push(e.frame); else open.pop();
		}
	}
	return out;
}

(async () => {
	const file = path.resolve(process.argv[2]);
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "stacktap-chromium."));
	const app = require.resolve("speedscope/dist/release/index.html");
	let ctx, ok = false;
	try {
		ctx = await chromium.launchPersistentContext(profile, {
			executablePath: "/usr/bin/chromium", headless: true, acceptDownloads: true,
			args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--no-first-run"],
		});
		const page = await ctx.newPage();
		page.on("dialog", async (d) => { console.error("speedscope: " + d.message()); await d.dismiss(); });
		await page.goto("file://" + app);
		await page.setInputFiles("input[type=file]", file);
		await page.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: 30000 });
		const [dl] = await Promise.all([page.waitForEvent("download"), page.getByText("Export").click()]);
		const out = path.join(profile, "export.json");
		await dl.saveAs(out);
		const doc = JSON.parse(fs.readFileSync(out, "utf8"));
		for (const p of doc.profiles)
			for (const [k, w] of stacks(p, doc.shared.frames))
				console.log(p.name + "|" + k + "|" + Math.round(w * 1e9) / 1e9);
		ok = true;
	} catch (e) {
		console.error("speedscope import: " + e);
	} finally {
		if (ctx) await ctx.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
	process.exit(ok ? 0 : 1);
})();
