#!/usr/bin/env python3
"""The ESP-IDF component graph as a real build sees it, for the firmware's checks.

Evaluates every component's CMakeLists.txt of an ESP-IDF source tree (plus the
firmware's own and managed components) for one target and sdkconfig, the way
ESP-IDF's build does in its requirements pass: set/list/if/foreach with the
CONFIG_* values, idf_build_get_property, and the calls that declare what a
component shows its dependents -- idf_component_register (REQUIRES,
PRIV_REQUIRES, INCLUDE_DIRS, PRIV_INCLUDE_DIRS), target_link_libraries
(PUBLIC/INTERFACE idf::X is a public requirement), idf_component_optional_requires,
target_include_directories. Every component also gets ESP-IDF's common
requirements (tools/cmake/build.cmake: requires_common, plus the target's
architecture component).

It prints, for one component, the include directories its sources see in a real
build: its own (public and private), then the public ones of every component in
the closure of its requirements (its REQUIRES and PRIV_REQUIRES, then the public
requirements of those, transitively). A header that the firmware includes and
that is not under one of them would not be found by ESP-IDF's build even though
it is in the tree: scripts/idf-syntax-check.sh compiles with these directories
only. --why HEADER names the components that have a header and whether each is
in the closure.

A manual maintainer's check (docs/firmware.md, "Checking against ESP-IDF"): no
ESP-IDF installation is needed, only its source tree.

usage: idf-component-graph.py --idf DIR --target CHIP --config SDKCONFIG
           [--component DIR]... [--map SUBDIR=DIR]... --for NAME [--closure | --includes | --options | --why HEADER...]
       --config: an sdkconfig file (CONFIG_X=y / # CONFIG_X is not set lines)
       --component: an extra component directory (its name is the folder's; a
                    managed component "espressif__iperf" is named "espressif__iperf"
                    and also answers to "iperf")
exit: 0 done (for --why: every header reachable), 1 a header not reachable or not
      found, 2 usage or a CMakeLists that cannot be read
"""
import argparse
import json
import os
import re
import sys

# ---------------------------------------------------------------- CMake reading

_TOKEN = re.compile(r'''\#\[(=*)\[.*?\]\1\]       # bracket comment
                      |\#[^\n]*                   # line comment
                      |"(?:\\.|[^"\\])*"          # quoted argument
                      |\[(=*)\[.*?\]\2\]          # bracket argument
                      |[()]
                      |[^\s()"#]+(?:"(?:\\.|[^"\\])*"[^\s()"#]*)*  # unquoted
                      |\s+''', re.S | re.X)


def parse_commands(text, path):
    """[(name, [(arg, quoted)], line)] of a CMake file."""
    out, pos, line = [], 0, 1
    toks = []
    for m in _TOKEN.finditer(text):
        t = m.group(0)
        if not t.startswith("#"):
            toks.append((t, line))
        line += t.count("\n")
    i = 0
    while i < len(toks):
        t, ln = toks[i]
        if t.isspace():
            i += 1
            continue
        j = i + 1
        while j < len(toks) and toks[j][0].isspace():
            j += 1
        if j >= len(toks) or toks[j][0] != "(":
            raise SystemExit("idf-component-graph: %s:%d: cannot read '%s'" % (path, ln, t))
        depth, args, k = 1, [], j + 1
        while k < len(toks) and depth:
            a = toks[k][0]
            if a == "(":
                depth += 1
                args.append(("(", False))
            elif a == ")":
                depth -= 1
                if depth:
                    args.append((")", False))
            elif not a.isspace():
                if a.startswith('"'):
                    args.append((a[1:-1].replace('\\"', '"'), True))
                elif a.startswith("["):
                    args.append((a[a.index("[", 1) + 1:a.rindex("]", 0, -1)], True))
                else:
                    args.append((a, False))
            k += 1
        out.append((t.lower(), args, ln))
        i = k
    return out


_FALSE = {"", "0", "off", "no", "false", "n", "ignore", "notfound"}


def truthy(s):
    return not (s.lower() in _FALSE or s.lower().endswith("-notfound"))


def vtuple(s):
    return tuple(int(x) for x in re.findall(r"\d+", s)[:4]) or (0,)


class Scope:
    """One component's evaluation: variables, and what it declares."""

    def __init__(self, graph, name, cdir):
        self.g = graph
        self.vars = dict(graph.globals)
        self.vars.update({"COMPONENT_DIR": cdir, "COMPONENT_PATH": cdir, "COMPONENT_NAME": name,
                          "COMPONENT_LIB": "__idf_" + name, "CMAKE_CURRENT_SOURCE_DIR": cdir,
                          "CMAKE_CURRENT_LIST_DIR": cdir})
        self.name, self.dir = name, cdir
        self.requires, self.priv_requires = [], []
        self.includes, self.priv_includes = [], []
        self.priv_options = []
        self.registered = False

    def expand(self, s):
        prev = None
        while prev != s:
            prev = s
            s = re.sub(r"\$ENV\{([^${}]*)\}", lambda m: self.g.env.get(m.group(1), ""), s)
            s = re.sub(r"\$\{([^${}]*)\}", lambda m: self.vars.get(m.group(1), ""), s)
        return s

    def args(self, raw):
        """Expanded arguments, split on ';': an unquoted one is a CMake list, and
        the calls read here take a quoted "${list}" as a list too
        (cmake_parse_arguments in idf_component_register, list(APPEND), set)."""
        out = []
        for a, quoted in raw:
            out.extend(x for x in self.expand(a).split(";") if x != "")
        return out

    # -- if() conditions (CMake's grammar, the parts components use)
    def cond(self, raw):
        toks = [(self.expand(a) if (quoted or "${" in a) else a, quoted) for a, quoted in raw]
        self.pos = 0
        self.toks = toks
        v = self._or()
        return v

    def _peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else (None, False)

    def _or(self):
        v = self._and()
        while self._peek()[0] == "OR" and not self._peek()[1]:
            self.pos += 1
            v = self._and() or v
        return v

    def _and(self):
        v = self._not()
        while self._peek()[0] == "AND" and not self._peek()[1]:
            self.pos += 1
            w = self._not()
            v = v and w
        return v

    def _not(self):
        if self._peek()[0] == "NOT" and not self._peek()[1]:
            self.pos += 1
            return not self._not()
        return self._cmp()

    def _value(self, tok):
        t, quoted = tok
        if not quoted and t in self.vars:
            return self.vars[t]
        return t

    def _cmp(self):
        t, quoted = self._peek()
        if t == "(" and not quoted:
            self.pos += 1
            v = self._or()
            self.pos += 1  # ')'
            return v
        unary = {"DEFINED", "EXISTS", "COMMAND", "TARGET", "IS_DIRECTORY", "POLICY"}
        if t in unary and not quoted:
            self.pos += 1
            a = self._peek()[0] or ""
            self.pos += 1
            if t == "DEFINED":
                return a in self.vars or (a.startswith("ENV{") and a[4:-1] in self.g.env)
            if t in ("EXISTS", "IS_DIRECTORY"):
                return os.path.isdir(a) if t == "IS_DIRECTORY" else os.path.exists(a)
            if t == "COMMAND":
                return a in KNOWN_COMMANDS
            if t == "TARGET":
                return a.startswith("idf::") and a[5:] in self.g.components or a.startswith("__idf_")
            return True
        self.pos += 1
        left = (t, quoted)
        op = self._peek()
        binary = {"STREQUAL", "EQUAL", "LESS", "GREATER", "LESS_EQUAL", "GREATER_EQUAL", "MATCHES",
                  "VERSION_LESS", "VERSION_GREATER", "VERSION_EQUAL", "VERSION_LESS_EQUAL",
                  "VERSION_GREATER_EQUAL", "IN_LIST", "STRLESS", "STRGREATER"}
        if op[0] in binary and not op[1]:
            self.pos += 1
            right = self._peek()
            self.pos += 1
            a, b = self._value(left), self._value(right)
            o = op[0]
            if o == "STREQUAL":
                return a == b
            if o == "MATCHES":
                return re.search(b, a) is not None
            if o == "IN_LIST":
                return a in self.vars.get(right[0], "").split(";")
            if o.startswith("VERSION_"):
                x, y = vtuple(a), vtuple(b)
                return {"VERSION_LESS": x < y, "VERSION_GREATER": x > y, "VERSION_EQUAL": x == y,
                        "VERSION_LESS_EQUAL": x <= y, "VERSION_GREATER_EQUAL": x >= y}[o]
            if o in ("STRLESS", "STRGREATER"):
                return a < b if o == "STRLESS" else a > b
            try:
                x, y = float(a or 0), float(b or 0)
            except ValueError:
                return False
            return {"EQUAL": x == y, "LESS": x < y, "GREATER": x > y, "LESS_EQUAL": x <= y,
                    "GREATER_EQUAL": x >= y}[o]
        # a lone constant or variable name
        if quoted:
            return truthy(t)
        if t.lower() in _FALSE or t.lower() in {"1", "on", "yes", "true", "y"}:
            return truthy(t)
        try:
            return float(t) != 0
        except ValueError:
            pass
        return t in self.vars and truthy(self.vars[t])


# Commands whose COMMAND test is true in an ESP-IDF build.
KNOWN_COMMANDS = {"idf_component_register", "idf_component_optional_requires", "idf_build_get_property",
                  "idf_component_get_property", "idf_build_set_property", "target_link_libraries"}


def keyword_lists(args, keywords):
    out, cur = {}, None
    for a in args:
        if a in keywords:
            cur = a
            out.setdefault(cur, [])
        elif cur:
            out[cur].append(a)
    return out


REGISTER_KEYS = {"SRCS", "SRC_DIRS", "EXCLUDE_SRCS", "INCLUDE_DIRS", "PRIV_INCLUDE_DIRS", "LDFRAGMENTS", "REQUIRES",
                 "PRIV_REQUIRES", "REQUIRED_IDF_TARGETS", "EMBED_FILES", "EMBED_TXTFILES", "KCONFIG",
                 "KCONFIG_PROJBUILD", "WHOLE_ARCHIVE", "LDFRAGMENTS"}


class Return(Exception):
    pass


def run(scope, cmds, path):
    i = 0
    while i < len(cmds):
        name, raw, line = cmds[i]
        if name == "if":
            # Gather the branches up to the matching endif.
            branches, cur, depth, j = [], (raw, []), 0, i + 1
            while j < len(cmds):
                n = cmds[j][0]
                if n == "if":
                    depth += 1
                elif n == "endif":
                    if depth == 0:
                        break
                    depth -= 1
                if depth == 0 and n in ("elseif", "else"):
                    branches.append(cur)
                    cur = (cmds[j][1] if n == "elseif" else None, [])
                else:
                    cur[1].append(cmds[j])
                j += 1
            branches.append(cur)
            for cond, body in branches:
                if cond is None or scope.cond(cond):
                    run(scope, body, path)
                    break
            i = j + 1
            continue
        if name in ("foreach", "function", "macro", "while"):
            end = {"foreach": "endforeach", "function": "endfunction", "macro": "endmacro", "while": "endwhile"}[name]
            depth, j = 0, i + 1
            while j < len(cmds):
                if cmds[j][0] == name:
                    depth += 1
                elif cmds[j][0] == end:
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
            if name == "foreach":
                a = scope.args(raw)
                var, items = a[0], a[1:]
                if items[:1] == ["IN"]:
                    items = [x for k in items[2:] for x in scope.vars.get(k, "").split(";") if x] \
                        if items[1:2] == ["LISTS"] else items[2:]
                if items[:1] != ["RANGE"]:
                    for it in items:
                        scope.vars[var] = it
                        run(scope, cmds[i + 1:j], path)
            i = j + 1
            continue
        call(scope, name, raw, path, line)
        i += 1


def call(scope, name, raw, path, line):
    a = scope.args(raw)
    v = scope.vars
    if name == "set" and a:
        vals = [x for x in a[1:] if x not in ("PARENT_SCOPE",)]
        if "CACHE" in vals:
            vals = vals[:vals.index("CACHE")]
        v[a[0]] = ";".join(vals)
    elif name == "unset" and a:
        v.pop(a[0], None)
    elif name == "list" and len(a) >= 2:
        op, var, rest = a[0], a[1], a[2:]
        cur = [x for x in v.get(var, "").split(";") if x != ""]
        if op == "APPEND":
            cur += rest
        elif op == "PREPEND":
            cur = rest + cur
        elif op == "REMOVE_ITEM":
            cur = [x for x in cur if x not in rest]
        elif op == "REMOVE_DUPLICATES":
            cur = list(dict.fromkeys(cur))
        elif op == "LENGTH" and rest:
            v[rest[0]] = str(len(cur))
            return
        elif op == "FIND" and len(rest) >= 2:
            v[rest[1]] = str(cur.index(rest[0]) if rest[0] in cur else -1)
            return
        else:
            return
        v[var] = ";".join(cur)
    elif name == "idf_build_get_property" and len(a) >= 2:
        v[a[0]] = scope.g.build_props.get(a[1], "")
    elif name == "idf_component_get_property" and len(a) >= 3:
        if a[2] == "COMPONENT_LIB":
            v[a[0]] = "__idf_" + a[1]
        elif a[2] in ("COMPONENT_DIR", "COMPONENT_PATH"):
            v[a[0]] = scope.g.components.get(a[1], "")
        else:
            v[a[0]] = ""
    elif name == "get_filename_component" and len(a) >= 3:
        p = a[1] if os.path.isabs(a[1]) else os.path.join(scope.dir, a[1])
        v[a[0]] = {"DIRECTORY": os.path.dirname(p), "NAME": os.path.basename(p),
                   "ABSOLUTE": os.path.normpath(p), "REALPATH": os.path.realpath(p)}.get(a[2], p)
    elif name == "string" and len(a) >= 3 and a[0] in ("TOUPPER", "TOLOWER"):
        v[a[2]] = a[1].upper() if a[0] == "TOUPPER" else a[1].lower()
    elif name == "return":
        raise Return()
    elif name == "include" and a:
        f = a[0]
        if os.path.isfile(f) and f.endswith("version.cmake"):
            run(scope, parse_commands(open(f).read(), f), f)
    elif name == "idf_component_register":
        kw = keyword_lists(a, REGISTER_KEYS)
        scope.registered = True
        scope.requires += kw.get("REQUIRES", [])
        scope.priv_requires += kw.get("PRIV_REQUIRES", [])
        scope.includes += kw.get("INCLUDE_DIRS", [])
        scope.priv_includes += kw.get("PRIV_INCLUDE_DIRS", [])
    elif name == "idf_component_optional_requires" and len(a) >= 2:
        dst = scope.requires if a[0] in ("PUBLIC", "INTERFACE") else scope.priv_requires
        dst += [c for c in a[1:] if c in scope.g.components]
    elif name == "target_link_libraries" and a and a[0] == v["COMPONENT_LIB"]:
        kind = "PRIVATE"
        for x in a[1:]:
            if x in ("PUBLIC", "PRIVATE", "INTERFACE"):
                kind = x
            elif x.startswith("idf::") or x.startswith("__idf_"):
                comp = x[5:] if x.startswith("idf::") else x[6:]
                (scope.priv_requires if kind == "PRIVATE" else scope.requires).append(comp)
    elif name == "target_compile_options" and a and a[0] == v["COMPONENT_LIB"]:
        scope.priv_options += [x for x in a[1:] if x not in ("PUBLIC", "PRIVATE", "INTERFACE", "BEFORE")]
    elif name == "target_include_directories" and a and a[0] == v["COMPONENT_LIB"]:
        kind = "PRIVATE"
        for x in a[1:]:
            if x in ("PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"):
                kind = x if x in ("PUBLIC", "PRIVATE", "INTERFACE") else kind
            else:
                (scope.priv_includes if kind == "PRIVATE" else scope.includes).append(x)


# ---------------------------------------------------------------- the graph

class Graph:
    def __init__(self, idf, target, config, extra, maps=()):
        self.idf = idf
        self.maps = [(os.path.normpath(os.path.join(idf, m.split("=", 1)[0])), os.path.abspath(m.split("=", 1)[1]))
                     for m in maps]
        self.env = {"IDF_PATH": idf, "IDF_TARGET": target}
        arch = "riscv" if is_riscv(idf, target) else "xtensa"
        self.components = {}
        for d in sorted(os.listdir(os.path.join(idf, "components"))):
            p = os.path.join(idf, "components", d)
            if os.path.isfile(os.path.join(p, "CMakeLists.txt")):
                self.components[d] = p
        self.aliases = {}
        for d in extra:
            d = os.path.abspath(d)
            n = os.path.basename(d.rstrip("/"))
            self.components[n] = d
            if "__" in n:
                self.aliases[n.split("__", 1)[1]] = n
        self.build_props = {"IDF_TARGET": target, "IDF_TARGET_ARCH": arch, "IDF_PATH": idf,
                            "BOOTLOADER_BUILD": "", "NON_OS_BUILD": "", "ESP_TEE_BUILD": "",
                            "__COMPONENT_TARGETS": "", "BUILD_COMPONENTS": ";".join(self.components),
                            "COMPILE_DEFINITIONS": "", "CONFIG_DIR": "", "IDF_VER": ""}
        self.globals = {"IDF_TARGET": target, "IDF_PATH": idf, "CMAKE_C_COMPILER_ID": "GNU",
                        "CMAKE_CXX_COMPILER_ID": "GNU", "CMAKE_C_COMPILER_VERSION": gcc_version(idf),
                        "CMAKE_CXX_COMPILER_VERSION": gcc_version(idf), "BOOTLOADER_BUILD": "",
                        "IDF_TARGET_ARCH": arch, "CMAKE_BUILD_EARLY_EXPANSION": ""}
        self.globals.update(read_sdkconfig(config))
        self.common = common_requires(idf) + [arch]
        self.scopes = {}

    def resolve(self, name):
        return self.aliases.get(name, name)

    def scope(self, name):
        name = self.resolve(name)
        if name not in self.scopes:
            d = self.components.get(name)
            s = Scope(self, name, d or "")
            self.scopes[name] = s
            if d:
                path = os.path.join(d, "CMakeLists.txt")
                try:
                    run(s, parse_commands(open(path).read(), path), path)
                except Return:
                    pass
                for dep, public in manifest_deps(d):
                    if dep in self.components:
                        (s.requires if public else s.priv_requires).append(dep)
        return self.scopes[name]

    def public_deps(self, name):
        s = self.scope(name)
        return [self.resolve(r) for r in s.requires]

    def closure(self, name):
        """Every component whose public include directories `name` sees."""
        s = self.scope(name)
        seen, order = set(), []
        start = [self.resolve(r) for r in s.requires + s.priv_requires] + self.common
        stack = list(reversed(start))
        while stack:
            c = stack.pop()
            if c in seen or c == name or c not in self.components:
                continue
            seen.add(c)
            order.append(c)
            stack.extend(reversed(self.public_deps(c) + self.common))
        return order

    def dirs(self, name, public_only):
        s = self.scope(name)
        out = []
        for d in s.includes + ([] if public_only else s.priv_includes):
            p = d if os.path.isabs(d) else os.path.join(s.dir, d)
            out.append(os.path.normpath(p))
        return out

    def includes(self, name):
        out = self.dirs(name, False)
        for c in self.closure(name):
            out += self.dirs(c, True)
        out = [self.mapped(d) for d in out]
        return list(dict.fromkeys(d for d in out if os.path.isdir(d)))

    def mapped(self, d):
        """A directory of a submodule the release's files lack, where --map puts it."""
        for src, dst in self.maps:
            if d == src or d.startswith(src + os.sep):
                return dst + d[len(src):]
        return d


def manifest_deps(cdir):
    """[(component, public)] of a component's idf_component.yml dependencies: the
    component manager adds each to the component's requirements, privately
    unless the entry says `require: public` ("espressif/iperf" is the component
    espressif__iperf; "idf" is ESP-IDF itself)."""
    path = os.path.join(cdir, "idf_component.yml")
    if not os.path.isfile(path):
        return []
    out, cur, indent, section = [], None, None, False
    for line in open(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        ind = len(line) - len(line.lstrip())
        text = line.strip()
        if ind == 0:
            section = text.startswith("dependencies:")
            continue
        if not section:
            continue
        if indent is None or ind <= indent:
            indent = ind
            key = text.split(":", 1)[0].strip().strip('"\'')
            cur = None if key == "idf" else [key.replace("/", "__"), False]
            if cur:
                out.append(cur)
        elif cur and re.match(r"require:\s*public", text):
            cur[1] = True
    return [tuple(x) for x in out]


def is_riscv(idf, target):
    caps = os.path.join(idf, "components", "soc", target, "include", "soc", "soc_caps.h")
    try:
        return "__riscv" in open(caps).read() or "SOC_CPU_HAS_" in open(caps).read() and "XTENSA" not in open(caps).read()
    except OSError:
        return target not in ("esp32", "esp32s2", "esp32s3")


def gcc_version(idf):
    """The GCC version of ESP-IDF's RISC-V toolchain (tools/tools.json), for the
    components that test CMAKE_C(XX)_COMPILER_VERSION."""
    try:
        tools = json.load(open(os.path.join(idf, "tools", "tools.json")))["tools"]
        for t in tools:
            if t["name"] in ("riscv32-esp-elf",):
                m = re.search(r"(\d+\.\d+\.\d+)", t["versions"][0]["name"])
                if m:
                    return m.group(1)
    except (OSError, ValueError, KeyError):
        pass
    sys.exit("idf-component-graph: %s/tools/tools.json has no riscv32-esp-elf version (extract tools/tools.json "
             "with the release's files)" % idf)


def common_requires(idf):
    """The components every component requires (build.cmake's requires_common for a chip)."""
    text = open(os.path.join(idf, "tools", "cmake", "build.cmake")).read()
    for m in re.finditer(r"set\(requires_common\s+([^)]*)\)", text):
        names = m.group(1).split()
        if "cxx" in names:
            return names
    sys.exit("idf-component-graph: no requires_common in %s/tools/cmake/build.cmake" % idf)


def read_sdkconfig(path):
    out = {}
    for line in open(path):
        line = line.strip()
        m = re.match(r"(CONFIG_[A-Za-z0-9_]+)=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip('"')
            continue
        m = re.match(r"# (CONFIG_[A-Za-z0-9_]+) is not set", line)
        if m:
            out[m.group(1)] = ""
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--idf", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--component", action="append", default=[])
    ap.add_argument("--map", action="append", default=[], metavar="SUBDIR=DIR",
                    help="a submodule directory of the tree (components/lwip/lwip) found at DIR")
    ap.add_argument("--for", dest="comp", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--closure", action="store_true")
    g.add_argument("--includes", action="store_true")
    g.add_argument("--options", action="store_true", help="the component's own compile options")
    g.add_argument("--why", nargs="+", metavar="HEADER")
    a = ap.parse_args()
    graph = Graph(os.path.abspath(a.idf), a.target, a.config, a.component, a.map)
    name = graph.resolve(a.comp)
    if name not in graph.components:
        print("idf-component-graph: no component %s" % a.comp, file=sys.stderr)
        return 2
    if a.closure:
        print(" ".join(graph.closure(name)))
        return 0
    if a.includes:
        for d in graph.includes(name):
            print(d)
        return 0
    if a.options:
        for o in graph.scope(name).priv_options:
            print(o)
        return 0
    closure, rc = set(graph.closure(name)) | {name}, 0
    for h in a.why:
        have = [c for c in graph.components for d in graph.dirs(c, True)
                if os.path.isfile(os.path.join(graph.mapped(d), h))]
        have = list(dict.fromkeys(have))
        if not have:
            print("%s: %s: in no component's public include directory of this ESP-IDF for %s"
                  % (a.comp, h, a.target))
            rc = 1
        elif not closure & set(have):
            print("%s: %s: in %s, which %s does not require (add it to REQUIRES or PRIV_REQUIRES)"
                  % (a.comp, h, " and ".join(have), a.comp))
            rc = 1
        else:
            print("%s: %s: from %s" % (a.comp, h, " and ".join(c for c in have if c in closure)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
