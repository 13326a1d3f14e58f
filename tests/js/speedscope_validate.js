// SPDX-License-Identifier: GPL-2.0
/*
 * Validates a speedscope file against the file-format schema the speedscope
 * package publishes (dist/release/file-format-schema.json), with ajv.
 *   node speedscope_validate.js FILE   -> "valid", or "invalid: ERRORS" (exit 1)
 */
"use strict";
const fs = require("fs");
const Ajv = require("ajv");
const schema = require("speedscope/dist/release/file-format-schema.json");

const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const doc = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
if (validate(doc)) {
	console.log("valid");
} else {
	console.log("invalid: " + JSON.stringify(validate.errors));
	process.exit(1);
}
