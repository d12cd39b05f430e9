#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the facts of hl-thunk's public API as data, for abi-check.sh.

    gen-hlthunk-abi.py HL_THUNK_GIT_DIR COMMIT KERNEL_UAPI_DIR > hlthunk-<commit>.abi

HL_THUNK_GIT_DIR is a clone (bare or not) of HabanaAI/hl-thunk-open, whose
include/uapi/hlthunk.h is read at COMMIT; KERNEL_UAPI_DIR is a kernel's
include/uapi directory (its drm/habanalabs_accel.h is what hl-thunk's header
includes).  The header is compiled with the host C compiler and the facts
are asked of the compiler: the prototypes (gcc -aux-info), the values of
enumerators and macros, and the size and offsets of every structure.  Only
facts are written, one per line, never the header's text:

    func    RETURN-TYPE<TAB>NAME<TAB>PARAMETER-TYPES
    enum    ENUM-TAG<TAB>ENUMERATOR<TAB>VALUE
    macro   NAME<TAB>int|str<TAB>VALUE
    size    TAG<TAB>BYTES
    field   TAG<TAB>MEMBER<TAB>OFFSET<TAB>BYTES<TAB>TYPE (empty: a named sub-struct)

Records about hl-thunk's own declarations come first ("api" scope); those of
the uapi header that hl-thunk's header makes visible to its users follow
("uapi" scope).
"""
import os
import re
import subprocess
import sys
import tempfile

# Enumerations of the uapi left out of the facts: none (the per-ASIC queue
# and engine numberings are the uapi's too, and libhlthunk's own copy of it
# has them).
UAPI_SKIPPED_ENUMS = set()
# Include guards and helpers of the headers themselves.
SKIPPED_MACROS = {"HLTHUNK_H", "HABANALABS_H_", "hlthunk_public"}


def strip_comments(text):
    """The declarations alone: no comments, no C++ linkage block."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'extern\s+"C"\s*\{', " ", text)


def top_level_blocks(text, keyword):
    """(tag, body) of every 'keyword tag { ... }' at file scope."""
    out = []
    for m in re.finditer(r"\b%s\s+(\w+)\s*\{" % keyword, text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        before = text[: m.start()]
        if before.count("{") - before.count("}") == 0:
            out.append((m.group(1), text[m.end(): i - 1]))
    return out


def unnamed(param):
    """A parameter declaration without its name: "const char *busid" ->
    "const char *", "int fd" -> "int", "void" -> "void"."""
    param = " ".join(param.split())
    m = re.match(r"(.*[\s*])(\w+)$", param)
    if m and m.group(1).strip() and m.group(1).split()[-1] not in ("struct", "enum", "union"):
        return m.group(1).strip()
    return param


def members(body, prefix=""):
    """(name, type text or None) of the members of a struct body: members of
    anonymous unions and structs as if they were the parent's, those of
    named ones as "name.member" after "name" itself (type None: compared
    by size only); function pointers with their parameters' names left out."""
    out = []
    i, cur = 0, ""
    while i < len(body):
        ch = body[i]
        if ch == "{":
            depth, j = 1, i + 1
            while depth:
                depth += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
            inner = body[i + 1: j - 1]
            k = body.index(";", j)
            name = body[j:k].strip()
            if name:
                out.append((prefix + name, None))
                out.extend(members(inner, prefix + name + "."))
            else:
                out.extend(members(inner, prefix))
            i, cur = k + 1, ""
            continue
        if ch == ";":
            decl = " ".join(cur.split())
            cur = ""
            i += 1
            if not decl:
                continue
            fp = re.match(r"(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", decl)
            if fp:
                params = ", ".join(unnamed(p) for p in fp.group(3).split(","))
                out.append((prefix + fp.group(2),
                            "%s (*)(%s)" % (fp.group(1).strip(), params)))
                continue
            m = re.match(r"(.*?)(\w+)\s*((?:\[[^\]]*\])*)$", decl)
            if not m:
                raise SystemExit("cannot parse member: %r" % decl)
            typ = m.group(1).strip() + (" " + m.group(3) if m.group(3) else "")
            out.append((prefix + m.group(2), " ".join(typ.split())))
            continue
        cur += ch
        i += 1
    return out


def enumerators(body):
    names = []
    for part in body.split(","):
        part = part.strip()
        if part:
            names.append(re.match(r"(\w+)", part).group(1))
    return names


def macros(text):
    out = []
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)(\()?", text, flags=re.M):
        if m.group(2) or m.group(1) in SKIPPED_MACROS:
            continue
        out.append(m.group(1))
    return out


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        sys.stderr.write(p.stderr)
        raise SystemExit("%s failed (%d)" % (cmd[0], p.returncode))
    return p.stdout


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    gitdir, rev, uapi = sys.argv[1:]
    accel = os.path.join(uapi, "drm", "habanalabs_accel.h")
    commit = run(["git", "--git-dir", gitdir, "rev-parse", rev + "^{commit}"]).strip()
    header_text = run(["git", "--git-dir", gitdir, "show",
                       commit + ":include/uapi/hlthunk.h"])
    api_text = strip_comments(header_text)
    uapi_text = strip_comments(open(accel).read())

    with tempfile.TemporaryDirectory() as tmp:
        header = os.path.join(tmp, "hl-thunk", "hlthunk.h")
        os.mkdir(os.path.dirname(header))
        open(header, "w").write(header_text)
        os.mkdir(os.path.join(tmp, "inc"))
        os.symlink(os.path.join(uapi, "drm"), os.path.join(tmp, "inc", "drm"))
        # The uapi header as the kernel ships it in its source tree still has
        # __user and a few kernel helpers in its macros.
        cflags = ["-std=gnu11", "-D__user=", "-I", os.path.join(tmp, "inc"),
                  "-I", os.path.dirname(header)]
        prelude = ("#include <stdio.h>\n#include <stddef.h>\n"
                   "#define BIT(n) (1UL << (n))\n#define U16_MAX 0xFFFF\n"
                   "#define SZ_1M 0x100000\n#include \"hlthunk.h\"\n")
        src = os.path.join(tmp, "t.c")
        aux = os.path.join(tmp, "aux.txt")
        open(src, "w").write(prelude)
        run(["cc"] + cflags + ["-aux-info", aux, "-c", src, "-o", os.devnull])

        lines = []
        for ln in open(aux):
            m = re.search(r"extern (.*?)\b(hlthunk_\w+) \((.*)\);", ln)
            if m:
                ret = " ".join(m.group(1).split())
                lines.append("func\t%s\t%s\t%s" % (ret, m.group(2), m.group(3)))
        funcs = sorted(lines, key=lambda l: l.split("\t")[2])

        prog = [prelude, "int main(void) {"]

        def emit(fmt, *args):
            prog.append('printf(%s, %s);' % (fmt, ", ".join(args)))

        for scope, text in (("api", api_text), ("uapi", uapi_text)):
            for tag, body in top_level_blocks(text, "enum"):
                if scope == "uapi" and tag in UAPI_SKIPPED_ENUMS:
                    continue
                for e in enumerators(body):
                    emit('"enum\\t%s\\t%s\\t%%lld\\n"' % (tag, e), "(long long)" + e)
            for name in macros(text):
                if scope == "uapi" and name.startswith(("GOYA_QUEUE", "GAUDI_QUEUE")):
                    continue
                prog.append("#if defined(%s)" % name)
                prog.append("_Generic((%s), char *: printf(\"macro\\t%s\\tstr\\t%%s\\n\", "
                            "(const char *)(uintptr_t)(%s)), default: "
                            "printf(\"macro\\t%s\\tint\\t%%lld\\n\", (long long)(uintptr_t)(%s)));"
                            % (name, name, name, name, name))
                prog.append("#endif")
            for kind in ("struct", "union"):
                for tag, body in top_level_blocks(text, kind):
                    t = "%s %s" % (kind, tag)
                    emit('"size\\t%s\\t%%zu\\n"' % t, "sizeof(%s)" % t)
                    for name, typ in members(body):
                        emit('"field\\t%s\\t%s\\t%%zu\\t%%zu\\t%s\\n"'
                             % (t, name, typ or ""),
                             "offsetof(%s, %s)" % (t, name),
                             "sizeof(((%s *)0)->%s)" % (t, name))
            prog.append('printf("--\\n");')
        prog.append("return 0; }")
        open(src, "w").write("#include <stdint.h>\n" + "\n".join(prog) + "\n")
        exe = os.path.join(tmp, "facts")
        run(["cc"] + cflags + ["-Wno-int-conversion", src, "-o", exe])
        facts = run([exe]).split("--\n")

    arch = run(["cc", "-dumpmachine"]).strip()
    print("# The public API of hl-thunk, as facts (see gen-hlthunk-abi.py).")
    print("# source: HabanaAI/hl-thunk-open include/uapi/hlthunk.h at commit %s" % commit)
    print("# with: %s" % accel)
    print("# target: %s" % arch)
    print("scope\tapi")
    print("\n".join(funcs))
    sys.stdout.write(facts[0])
    print("scope\tuapi")
    sys.stdout.write(facts[1])


if __name__ == "__main__":
    main()
