#!/usr/bin/env python3
"""The dependency rule of ARCHITECTURE.md, checked on the source tree.

    core <- kafka <- apps        sim <- core

  1. The core (lib/core, causal/*.hpp) includes no Kafka, simulator or CLI header:
     no causal/kafka/, causal/sim/, librdkafka, CLI11.
  2. The simulator (lib/sim, causal/sim/) includes no Kafka or CLI header.
  3. The Kafka runtime (lib/kafka, causal/kafka/) includes no simulator or CLI header.
  4. No library file includes a header of apps/causal.
  5. apps/ calls no librdkafka function: Kafka work belongs in lib/kafka. (A delivered
     message's type passes through the consumer host's observer interface; the tool reads
     it through kafka::RecordView.)
  6. No string literal under lib/ names a command-line option (--name, or -b/-X/-F as a
     word): the libraries speak in fields and values, and the tool renders its options.
  7. No library ends the process (exit, _exit, quick_exit, abort by exit code): exit codes
     are the tool's, mapped in apps/causal/main.cpp.

Usage: dependency_rule.py SOURCE_DIR     check the tree; one line per violation, exit 1
       dependency_rule.py --self-test    plant one violation of each rule in a scratch
                                         tree and require each to be reported
"""
import os
import re
import shutil
import sys
import tempfile

CPP = (".cpp", ".hpp", ".h", ".cc")


def strip_comments(text):
    """The text with comments blanked and string/char literals kept, and the literals."""
    out, literals = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            close = text.find(")" + delim + '"', open_paren)
            end = n if close < 0 else close + len(delim) + 2
            literals.append((text.count("\n", 0, i) + 1, text[open_paren + 1:close if close >= 0 else n]))
            out.append(text[i:end])
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                literals.append((text.count("\n", 0, i) + 1, text[i + 1:j]))
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), literals


def files(root, sub):
    base = os.path.join(root, sub)
    for d, _, names in os.walk(base):
        for name in sorted(names):
            if name.endswith(CPP):
                yield os.path.join(d, name)


def includes(code):
    for m in re.finditer(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', code, re.M):
        yield code.count("\n", 0, m.start()) + 1, m.group(1)


def layer_of(root, path):
    rel = os.path.relpath(path, root)
    parts = rel.split(os.sep)
    if parts[0] == "apps":
        return "apps"
    if parts[0] != "lib":
        return None
    if "kafka" in parts[1:]:
        return "kafka"
    if "sim" in parts[1:]:
        return "sim"
    return "core"


FORBIDDEN = {
    "core": [(r"^causal/kafka/", "a Kafka header"), (r"^causal/sim/", "a simulator header"),
             (r"librdkafka|rdkafka\.h", "librdkafka"), (r"^CLI/", "CLI11")],
    "sim": [(r"^causal/kafka/", "a Kafka header"), (r"librdkafka|rdkafka\.h", "librdkafka"),
            (r"^CLI/", "CLI11")],
    "kafka": [(r"^causal/sim/", "a simulator header"), (r"^CLI/", "CLI11")],
}
OPTION = re.compile(r"(?:^|[\s(`'\[=,])(--[a-z][a-z0-9-]+|-[bXF](?=\s|$))")
EXIT = re.compile(r"\b(?:std::)?(?:exit|_exit|_Exit|quick_exit)\s*\(")


def check(root):
    problems = []
    app_headers = set()
    apps = os.path.join(root, "apps")
    for path in files(root, "apps"):
        if path.endswith((".hpp", ".h")):
            app_headers.add(os.path.basename(path))
    for sub in ("lib", "apps"):
        for path in files(root, sub):
            rel = os.path.relpath(path, root)
            layer = layer_of(root, path)
            with open(path, encoding="utf-8", errors="replace") as f:
                code, literals = strip_comments(f.read())
            for line, inc in includes(code):
                for pattern, what in FORBIDDEN.get(layer, []):
                    if re.search(pattern, inc):
                        problems.append(f"{rel}:{line}: the {layer} layer includes {what} ({inc})")
                if layer != "apps" and ("apps/" in inc or os.path.basename(inc) in app_headers and "/" not in inc):
                    problems.append(f"{rel}:{line}: a library includes a header of apps/causal ({inc})")
            if layer == "apps":
                m = re.search(r"\brd_kafka_\w+(?=\s*\()", code)
                if m:
                    line = code.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: apps/ calls librdkafka ({m.group(0)}()); Kafka work belongs in lib/kafka")
                continue
            for line, lit in literals:
                m = OPTION.search(lit)
                # Kafka's own tools' options (kafka-consumer-groups --reset-offsets) are
                # Kafka's words, which a library may quote.
                if m and not re.search(r"kafka-[a-z-]+(\.sh)?\s+(\S+\s+)*$", lit[:m.start(1)]):
                    problems.append(f"{rel}:{line}: a library string names the command-line option {m.group(1)}")
            m = EXIT.search(code)
            if m:
                line = code.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: a library ends the process ({m.group(0).strip()}...)")
    return problems


def self_test():
    planted = {
        "lib/core/a.cpp": '#include "causal/kafka/relay.hpp"\n',
        "lib/sim/b.cpp": "#include <librdkafka/rdkafka.h>\n",
        "lib/kafka/c.cpp": '#include "causal/sim/world.hpp"\n',
        "lib/kafka/d.cpp": '#include "tail_format.hpp"\n',
        "apps/causal/tail_format.hpp": "#pragma once\n",
        "apps/causal/e.cpp": "void f() { rd_kafka_poll(nullptr, 0); }\n",
        "lib/core/f.cpp": 'const char* m = "give it with --group G"; // --fine in a comment\n',
        "lib/kafka/g.cpp": 'const char* m = "use -b HOST:PORT";\n',
        "lib/core/h.cpp": "void f() { std::exit(2); }\n",
        "lib/core/ok.cpp": '// "--comment" and -b in comments are fine\nconst char* m = "a-b c, x--y";\n'
                           'const char* k = "written by kafka-consumer-groups --reset-offsets";\n',
    }
    expected = ["lib/core/a.cpp:1", "lib/sim/b.cpp:1", "lib/kafka/c.cpp:1", "lib/kafka/d.cpp:1",
                "apps/causal/e.cpp:1", "lib/core/f.cpp:1", "lib/kafka/g.cpp:1", "lib/core/h.cpp:1"]
    tmp = tempfile.mkdtemp()
    try:
        for rel, text in planted.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        found = check(tmp)
    finally:
        shutil.rmtree(tmp)
    missed = [e for e in expected if not any(p.startswith(e + ":") for p in found)]
    extra = [p for p in found if not any(p.startswith(e + ":") for e in expected)]
    for e in missed:
        print(f"FAIL self-test: the planted violation at {e} was not reported")
    for p in extra:
        print(f"FAIL self-test: reported where nothing was planted: {p}")
    return 1 if missed or extra else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} violation(s) of the dependency rule (ARCHITECTURE.md)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
