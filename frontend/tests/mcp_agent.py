#!/usr/bin/env python3
"""An agent's session with etlscope's MCP server, through the official Python SDK (PyPI `mcp`).

Run by frontend/tests/mcp.test.mjs. Over stdio (`etlscope mcp --demo`, started here) and over
streamable HTTP (`/mcp` of a running `etlscope serve --demo`), it lists the tools, checks each
tool's input schema is valid JSON Schema, answers the blog investigation of the bundled demo trace
through tools alone, sends hostile arguments, and prints one JSON object with the figures and view
links found on each transport (the test compares them with the README's and opens a link).

usage: mcp_agent.py --bin ETLSCOPE --data-dir DIR --http http://127.0.0.1:PORT
"""

import argparse
import asyncio
import json
import sys

import httpx2
import jsonschema
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

TOOLS = {
    "list_traces", "open_trace", "trace_summary", "table", "hot_stacks", "callers", "callees",
    "flame", "findings", "compare", "symbols", "sql",
}
TARGET = "windows.storage.dll!CFSFolder::_GetOverlayInfo"
SHELL_EXT = "tishell64_26_0_39450.dll"
RANGE = {"start_s": 7, "end_s": 23}


class ToolError(Exception):
    pass


class Agent:
    def __init__(self, client):
        self.client = client
        self.schemas = {}

    async def list_tools(self):
        listed = await self.client.list_tools()
        for t in listed.tools:
            # The client's own check: every input schema is a valid JSON Schema of an object.
            jsonschema.Draft202012Validator.check_schema(t.input_schema)
            assert t.input_schema.get("type") == "object", t.name
            assert t.description and len(t.description) > 40, f"{t.name} has no useful description"
            self.schemas[t.name] = t.input_schema
            # Only open_trace and symbols change anything (the library, a symbol lookup).
            read_only = t.annotations is not None and t.annotations.read_only_hint
            assert read_only == (t.name not in ("open_trace", "symbols")), (t.name, t.annotations)
        missing = TOOLS - set(self.schemas)
        assert not missing, f"tools missing: {sorted(missing)}"
        return sorted(self.schemas)

    async def call(self, name, args, validate=True):
        """A tool's JSON answer; a tool error raises ToolError with its text."""
        if validate:
            jsonschema.validate(args, self.schemas[name])
        r = await self.client.call_tool(name, args)
        text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
        if r.is_error:
            raise ToolError(text)
        return json.loads(text)

    async def tool_error(self, name, args):
        """The message of the tool error these (hostile) arguments must give."""
        try:
            got = await self.call(name, args, validate=False)
        except ToolError as e:
            return str(e)
        raise AssertionError(f"{name}({args}) answered instead of failing: {json.dumps(got)[:300]}")


async def investigate(agent):
    """The README's walkthrough, through tools alone: each figure and the link to its view."""
    out = {"tools": await agent.list_tools()}
    traces = (await agent.call("list_traces", {}))["traces"]
    demo = next(t for t in traces if t["name"] == "explorer-overlay.etl")
    fixed = next(t for t in traces if t["name"] == "explorer-fixed.etl")
    tid = demo["id"]
    summary = await agent.call("trace_summary", {"trace": tid})
    # Function names come from the symbol lookup that follows the read: wait for it, as an agent would.
    for _ in range(300):
        if (await agent.call("symbols", {"trace": tid}))["status"] == "done":
            break
        await asyncio.sleep(0.2)
    assert summary["cpus"] > 0 and "cpu-sampled" in summary["tables_filled"], summary

    # 1. CPU by process in 7-23 s: explorer.exe on top.
    procs = await agent.call("table", {"trace": tid, "table": "cpu-sampled", "keys": ["Process"],
                                       "range": RANGE, "limit": 5})
    explorer = procs["rows"][0]
    assert explorer["label"].startswith("explorer.exe ("), explorer
    out["explorer"] = {"process": explorer["label"], "count": explorer["count"], "link": procs["link"]}

    # 2. Its hot path, down to CFSFolder::_GetOverlayInfo and on into the shell extension.
    hot = await agent.call("hot_stacks", {"trace": tid, "process": explorer["label"], "range": RANGE})
    labels = [f["label"] for f in hot["path"]]
    assert TARGET in labels, labels
    upto = labels[: labels.index(TARGET) + 1]
    frame = hot["path"][labels.index(TARGET)]
    assert any(l.startswith(SHELL_EXT + "!") for l in labels), labels
    # The same row through `table`, with the link that selects it in the UI.
    drill = await agent.call("table", {"trace": tid, "table": "cpu-sampled", "keys": ["Process", "Stack"],
                                       "range": RANGE, "path": [explorer["label"]] + upto, "limit": 3})
    assert drill["parent"]["count"] == frame["count"], (drill["parent"], frame)
    out["overlay"] = {"count": frame["count"], "path": [explorer["label"]] + upto, "link": drill["link"],
                      "hot_link": hot["link"]}

    # 3. Callers of the shell extension's module, by module; findings name it with its stacks.
    bf = await agent.call("callers", {"trace": tid, "kind": "module", "target": SHELL_EXT, "by": "module"})
    findings = (await agent.call("findings", {"trace": tid}))["findings"]
    ext = next(f for f in findings if f["rule"] == "third-party-module" and SHELL_EXT in f["title"])
    out["shell_ext"] = {"finding": ext["figure"], "inclusive": bf["inclusive"]["count"], "link": bf["link"],
                        "callers": [[r["label"], r["count"]] for r in bf["rows"]]}
    callees = await agent.call("callees", {"trace": tid, "kind": "module", "target": SHELL_EXT, "by": "module"})
    assert callees["rows"], callees

    # 4. Images without version information.
    imgs = await agent.call("table", {"trace": tid, "table": "images", "keys": ["File Version", "Image Path"],
                                      "path": [""], "limit": 50})
    out["unversioned"] = {"count": len(imgs["rows"]), "more": imgs["more"], "link": imgs["link"],
                          "paths": [r["label"] for r in imgs["rows"]]}

    # 5. The most opened file.
    opens = await agent.call("table", {"trace": tid, "table": "file-io", "keys": ["Type", "File Path"],
                                       "path": ["Create"], "limit": 1})
    top = opens["rows"][0]
    out["opened"] = {"path": top["label"], "count": top["count"], "more": opens["more"], "link": opens["link"]}

    # The rest of the tool box, on the same trace.
    flame = await agent.call("flame", {"trace": tid, "range": RANGE, "levels": 4, "per_level": 3})
    assert flame["levels"] and flame["levels"][0], flame
    out["flame_root"] = flame["total"]["count"]
    cmp = await agent.call("compare", {"base": tid, "new": fixed["id"], "table": "cpu-sampled",
                                       "keys": ["Process"], "limit": 3})
    out["compare"] = {"rows": cmp["rows"][:3], "link": cmp["link"]}
    sym = await agent.call("symbols", {"trace": tid})
    out["symbols"] = sym["status"]
    # What no preset asks, in SQL: the same 42,300 from the samples themselves.
    q = await agent.call("sql", {"trace": tid, "sql": "SELECT process, count(*) FROM cpu_sampled "
                                 "WHERE time >= 7000000000 AND time < 23000000000 GROUP BY 1 ORDER BY 2 DESC LIMIT 3"})
    out["sql"] = {"top": q["rows"][0], "truncated": q["truncated"]}
    out["catalog"] = await plan_with_resources(agent, tid, fixed["id"])
    out["errors"] = await hostile(agent, tid)
    return out


async def plan_with_resources(agent, tid, other):
    """The resources an agent plans with (summary, column catalog) and the investigation prompts."""
    client = agent.client
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert f"etlscope://traces/{tid}/columns" in uris and f"etlscope://traces/{tid}/summary" in uris, uris
    read = await client.read_resource(f"etlscope://traces/{tid}/columns")
    tables = json.loads(read.contents[0].text)["tables"]
    assert "Process" in tables["cpu-sampled"]["key_columns"], tables["cpu-sampled"]
    assert "File Path" in tables["file-io"]["key_columns"], tables["file-io"]
    summary = json.loads((await client.read_resource(f"etlscope://traces/{tid}/summary")).contents[0].text)
    assert summary["id"] == tid, summary
    try:
        await client.read_resource("etlscope://traces/nothing/here")
        raise AssertionError("an unknown resource was read")
    except AssertionError:
        raise
    except Exception as e:  # the server's resource-not-found error
        missing = f"{type(e).__name__}: {e}"
    prompts = sorted(p.name for p in (await client.list_prompts()).prompts)
    assert prompts == ["what_changed", "why_cpu"], prompts
    why = await client.get_prompt("why_cpu", {"trace": tid, "process": "explorer.exe (6148)", "range": "7-23"})
    text = why.messages[0].content.text
    assert "hot_stacks" in text and tid in text, text
    changed = await client.get_prompt("what_changed", {"base": tid, "new": other})
    assert "compare" in changed.messages[0].content.text
    return {"tables": len(tables), "prompts": prompts, "missing_resource": missing}


async def hostile(agent, tid):
    """Arguments an agent may get wrong: each is a tool error with the API's message, and the
    server answers the next call as before."""
    errs = {}
    errs["unknown_table"] = await agent.tool_error("table", {"trace": tid, "table": "no-such-table", "keys": ["Process"]})
    assert "unknown table" in errs["unknown_table"], errs
    errs["huge_limit"] = await agent.tool_error("table", {"trace": tid, "keys": ["Process"], "limit": 10**12})
    assert "limit" in errs["huge_limit"], errs
    errs["bad_range"] = await agent.tool_error("table", {"trace": tid, "keys": ["Process"],
                                                         "range": {"start_s": 30, "end_s": 2}})
    # A range outside the trace is no error for the API either: nothing happened there.
    before = await agent.call("flame", {"trace": tid, "range": {"start_s": -5, "end_s": -1}})
    assert before["total"]["count"] == 0, before
    huge = await agent.call("table", {"trace": tid, "keys": ["Process"], "range": {"start_s": 0, "end_s": 1e300}})
    assert huge["rows"], huge
    errs["unknown_column"] = await agent.tool_error("table", {"trace": tid, "keys": ["No Such Column"]})
    assert "unknown column" in errs["unknown_column"], errs
    errs["unknown_trace"] = await agent.tool_error("trace_summary", {"trace": "0" * 32})
    errs["bad_trace_id"] = await agent.tool_error("table", {"trace": "../../etc/passwd", "keys": ["Process"]})
    errs["bad_path"] = await agent.tool_error("table", {"trace": tid, "keys": ["Process"], "path": ["nobody.exe (1)"]})
    errs["unknown_target"] = await agent.tool_error("callers", {"trace": tid, "kind": "function", "target": "x!y"})
    errs["bad_kind"] = await agent.tool_error("callees", {"trace": tid, "kind": "thread", "target": "x"})
    errs["huge_levels"] = await agent.tool_error("flame", {"trace": tid, "levels": 10**9})
    errs["sql_write"] = await agent.tool_error("sql", {"trace": tid, "sql": "DELETE FROM processes"})
    errs["sql_attach"] = await agent.tool_error("sql", {"trace": tid, "sql": "ATTACH DATABASE '/tmp/x.db' AS x"})
    errs["sql_syntax"] = await agent.tool_error("sql", {"trace": tid, "sql": "SELEC 1"})
    errs["sql_huge_limit"] = await agent.tool_error("sql", {"trace": tid, "sql": "SELECT 1", "limit": 10**9})
    # Wrong types are refused by the SDK's argument check (a JSON-RPC error), not a crash.
    try:
        await agent.call("table", {"trace": tid, "keys": "Process", "limit": "many"}, validate=False)
        raise AssertionError("keys as a string was accepted")
    except ToolError as e:
        errs["wrong_types"] = str(e)
    except AssertionError:
        raise
    except Exception as e:  # the SDK raises the server's invalid-params error
        errs["wrong_types"] = f"{type(e).__name__}: {e}"
    for k, v in errs.items():
        assert v and len(v) < 2000, (k, v)
    # Still serving.
    again = await agent.call("table", {"trace": tid, "keys": ["Process"], "range": RANGE, "limit": 1})
    assert again["rows"], again
    return errs


async def over_stdio(binary, data_dir):
    params = StdioServerParameters(command=binary, args=["mcp", "--demo", "--data-dir", data_dir])
    async with Client(params) as client:
        agent = Agent(client)
        out = await investigate(agent)
        # Stdio only: open a trace by path (the demo's file, already in the library by then).
        opened = await agent.call("open_trace", {"path": f"{data_dir}/demo/explorer-fixed.etl"})
        out["open_trace"] = opened["id"]
        return out


async def over_http(base):
    headers = {"X-Etlscope": "1"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            agent = Agent(client)
            out = await investigate(agent)
            # Over HTTP a trace is opened by its library id; a path is refused.
            out["open_trace"] = (await agent.call("open_trace", {"id": out["compare"]["link"].split("/compare/")[1][:32]}))["id"]
            out["open_path_refused"] = await agent.tool_error("open_trace", {"path": "/etc/passwd"})
            return out


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--http", required=True)
    a = ap.parse_args()
    result = {"stdio": await over_stdio(a.bin, a.data_dir), "http": await over_http(a.http)}
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    asyncio.run(main())
