// The stepcheck VS Code extension: starts `stepcheck-lsp` (pip install 'stepcheck[lsp]') on stdio
// for .step files.  Highlighting comes from syntaxes/step.tmLanguage.json.
"use strict";
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("stepcheck").get("server.command", ["stepcheck-lsp"]);
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    "stepcheck",
    "stepcheck",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "stepcheck" }, { scheme: "untitled", language: "stepcheck" }] }
  );
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
