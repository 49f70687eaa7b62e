"""The walk of a bash command's parse tree (tree-sitter's, with the tree-sitter-bash grammar):
every simple command anywhere in it, where its redirections write, and why the tree cannot
vouch for what runs (:class:`Reader`). :mod:`.shell` turns what it gathers into a
:class:`~.shell.ShellScript`; how one word reads is :mod:`.shell_words`'s, which names bash
gives a meaning :mod:`.shell_names`'s. tree_sitter is imported on the first parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .shell_names import OPAQUE, SHELLS, loader_var
from .shell_unwrap import Unwrapped, option_commands, unwrap
from .shell_words import (
    NAME,
    Word,
    backtick_spans,
    descendants,
    joined_lines,
    node_text,
    plain_number,
    short,
    unescaped,
    word,
)
from .shell_wrappers import WRAPPERS

__all__ = ["MAX_DEPTH", "Reader", "SimpleCommand", "parser"]

MAX_DEPTH = 8  # nested `bash -c` strings and backticks re-read; deeper is not vouched for


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[Word, ...]  # the real command: name and arguments
    views: tuple[str, ...]  # every form a deny rule is matched against (wrapped, path-less, …)
    fed: bool = False  # a wrapper (xargs) adds arguments from its input: known only when it runs
    env: tuple[str, ...] = ()  # variables set for it (`X=1 cmd`, `env X=1 cmd`, xargs's slot var)

    @property
    def text(self) -> str:
        """The command as allow rules see it: name and arguments after quote removal."""
        return " ".join(w.text for w in self.words)


def _set(names: str) -> frozenset[str]:
    return frozenset(names.split())


@lru_cache(maxsize=1)
def parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


_WRITE_OPS = {">", ">>", ">|", "&>", "&>>", ">&", "<>"}
_ARITH_OK = _set(
    "number binary_expression unary_expression postfix_expression ternary_expression "
    "parenthesized_expression"
)
_ARITH_TEST_OPS = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"}
# builtins whose arguments name variables (a subscript in a name is evaluated as code)
_NAME_TAKERS = _set(
    "read unset mapfile readarray getopts let declare typeset local export readonly"
)
_NAME_OPTION = {"printf": "-v", "test": "-v", "[": "-v", "wait": "-p"}  # `printf -v NAME`
_DIR_CHANGERS = {"cd", "pushd", "popd"}
_ARGS_SKIP = {"file_redirect", "heredoc_redirect", "herestring_redirect", "comment"}


@dataclass
class Reader:
    """What one command holds, gathered as its tree is walked (:meth:`read`)."""

    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    unvouched: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    changes_dir: bool = False
    makes_links: bool = False

    def read(self, source: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unvouched.append("too many nested shells to follow")
            return
        if "\0" in source:
            self.unvouched.append("a NUL character in the command")
            return
        try:
            data = source.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: not text bash and the grammar agree on
            self.unvouched.append("characters that are not valid UTF-8")
            data = source.encode("utf-8", "replace")
        root = parser().parse(data).root_node
        if root.has_error:
            self.unvouched.append("bash cannot parse it as written (a syntax error)")
        if joined_lines(root, data):
            self.unvouched.append("a backslash-newline inside a word (bash joins the lines)")
        stack = [root]
        while stack:
            node = stack.pop()
            descend = self._visit(node, depth)
            if descend:
                stack.extend(reversed(node.children))

    # One node; True to look at its children too.
    def _visit(self, node: Any, depth: int) -> bool:
        t = node.type
        if node.is_named and not node.child_count and t not in _LITERAL_LEAVES:
            if unescaped(node_text(node), ("`", "$(")):
                # the grammar left a substitution as text (`${x:-`cmd`}`, `${x#$(cmd)}`)
                self.unvouched.append(
                    f"a substitution the parser did not read: {short(node_text(node))}"
                )
        if t == "heredoc_body":
            return self._heredoc(node, depth)
        if t == "command":
            self.sources.append(node_text(node))
            self._command(node, depth)
        elif t in ("declaration_command", "unset_command"):
            self.sources.append(node_text(node))
            self._declaration(node)
        elif t == "variable_assignment":
            name = node.child_by_field_name("name") or node.named_children[0]
            self._sets(node_text(name).split("[", 1)[0])
        elif t == "for_statement":  # for NAME in …; select NAME in …
            name = node.child_by_field_name("variable")
            if name is not None:
                self._sets(node_text(name))
        elif t == "command_substitution" and node_text(node).startswith("`"):
            inner = node_text(node)[1:-1]
            # Inside backticks a backslash before ` $ \ is removed before the text is read
            # (and before " too, inside double quotes): `echo \`rm\`` runs rm, which the
            # tree shows as a plain word.
            quoted = node.parent is not None and node.parent.type == "string"
            escapes = r"\\([`$\\\"])" if quoted else r"\\([`$\\])"
            self.read(re.sub(escapes, r"\1", inner), depth + 1)
            return False
        elif t == "file_redirect":
            self._redirect(node)
        elif t == "arithmetic_expansion":
            self._arithmetic(node)
        elif t == "c_style_for_statement":  # for ((…)): the header, not the body
            kids = node.children
            ends = [k for k, c in enumerate(kids) if c.type == "))"]
            for c in kids[: ends[0] if ends else len(kids)]:
                self._arithmetic(c)
        elif t == "compound_statement" and node.child_count and node.children[0].type == "((":
            self._arithmetic(node)
        elif t == "subscript":
            index = [c for c in node.children[1:] if c.is_named]
            if any(not plain_number(c) for c in index):
                self.unvouched.append("an array subscript with a variable (evaluated as code)")
        elif t == "expansion":
            self._expansion(node)
        elif t == "test_command":
            self._test(node)
        return True

    def _sets(self, name: str) -> None:
        """The command sets variable ``name``."""
        if loader_var(name):
            self.unvouched.append(f"it sets {short(name)}, which changes what programs run")

    def _command(self, node: Any, depth: int) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        args = [
            c
            for c in node.named_children
            if c.start_byte > name_node.start_byte and c.type not in _ARGS_SKIP
        ]
        named = name_node.named_children
        words = [word(named[0] if named else name_node)] + [word(a) for a in args]
        env = [
            node_text(c.child_by_field_name("name") or c).split("[", 1)[0]
            for c in node.named_children
            if c.type == "variable_assignment" and c.start_byte < name_node.start_byte
        ]
        self._simple(words, depth, env)

    def _simple(self, words: list[Word], depth: int, env: list[str] | None = None) -> None:
        """One simple command's words (assignments already gone, their names in ``env``):
        unwrap, then record."""
        env = list(env or [])
        views: list[list[Word]] = [words]
        allowed: list[Word] | None = None  # what allow rules match: up to a sudo-like wrapper
        later: list[list[Word]] = []  # find's words: what its -exec runs comes after it
        fed = False
        while True:
            name = words[0].value
            if name is None:
                self.unvouched.append(
                    f"the command name {short(words[0].raw)} is only known when it runs"
                )
                break
            base = name.rsplit("/", 1)[-1]
            if base in _DIR_CHANGERS:
                self.changes_dir = True
            if base == "ln":
                self.makes_links = True
            if name in OPAQUE:
                self.unvouched.append(OPAQUE[name])
            self._names_from_variables(base, words)
            if base in SHELLS and self._shell(words, depth):
                words = []  # what runs is the string's commands, read above
                break
            if base == "find":
                later.append(list(words))
            self._option_commands(base, words, depth)
            wrapper = WRAPPERS.get(base)
            if wrapper is None:
                break
            got = unwrap(base, wrapper, words)
            if got is None:
                self.unvouched.append(f"cannot tell which command {short(name)} runs")
                break
            self._wrapped(got, depth)
            env += got.sets
            fed = fed or got.fed
            if not got.command:
                break
            if (not wrapper.transparent or got.writes) and allowed is None:
                allowed = words
            words = got.command
            views.append(words)
        self._record(allowed if allowed is not None else words, views, fed, env)
        for find in later:
            self._find(find, depth)

    def _wrapped(self, got: Unwrapped, depth: int) -> None:
        """What a wrapper does besides running its command: shell lines and programs its
        options name, variables it sets, another directory, what it cannot tell."""
        self.unvouched.extend(got.doubts)
        for var in got.sets:
            self._sets(var)
        if got.changes_dir:
            self.changes_dir = True
        for line in got.lines:
            self.read(line, depth + 1)
        for program in got.programs:
            self._simple([program], depth)

    def _option_commands(self, base: str, words: list[Word], depth: int) -> None:
        """``split --filter=LINE``, ``sort --compress-program=PROG``, …: what they run."""
        for kind, text in option_commands(base, words):
            if text is None:
                self.unvouched.append(f"cannot tell what {short(base)} runs: an option's value")
            elif kind == "line":
                self.read(text, depth + 1)
            else:
                self._simple([Word(text, text)], depth)

    def _record(
        self,
        real: list[Word],
        views: list[list[Word]],
        fed: bool = False,
        env: list[str] | None = None,
    ) -> None:
        if not real:
            return
        views = [ws for ws in views if ws]
        texts: list[str] = []
        for ws in views:
            texts.append(" ".join(w.text for w in ws))
            head = ws[0].value
            if head and "/" in head:  # /bin/rm is rm to a deny rule
                short = Word(ws[0].raw, head.rsplit("/", 1)[-1])
                texts.append(" ".join(w.text for w in [short, *ws[1:]]))
        self.commands.append(
            SimpleCommand(tuple(real), tuple(dict.fromkeys(texts)), fed, tuple(env or ()))
        )

    def _shell(self, words: list[Word], depth: int) -> bool:
        """`bash -c STRING`: the string is read like the command itself (True). A shell with a
        script file is an ordinary command (False); with neither it reads commands from its
        input, which nothing here can see."""
        has_c = reads_stdin = False
        i = 1
        while i < len(words):
            v = words[i].value
            if v is None:
                if has_c:
                    break
                self.unvouched.append(f"cannot tell what {short(words[0].raw)} runs")
                return False
            if v in ("--", "-"):
                i += 1
                break
            if v.startswith("--"):
                i += 2 if v in ("--rcfile", "--init-file") else 1
                continue
            if v[:1] in "-+" and len(v) > 1:
                takes = sum(v.count(c) for c in "oO")
                has_c = has_c or "c" in v[1:]
                reads_stdin = reads_stdin or "s" in v[1:]
                i += 1 + takes
                continue
            break
        if has_c:
            string = words[i].value if i < len(words) else None
            if string is None:
                self.unvouched.append(f"the string {short(words[0].raw)} -c runs is not literal")
            else:
                self.read(string, depth + 1)
            return True
        if reads_stdin or i >= len(words):
            self.unvouched.append(
                f"{short(words[0].raw)} reads the commands it runs from its input"
            )
        return False

    def _find(self, words: list[Word], depth: int) -> None:
        i = 1
        while i < len(words):
            if words[i].value in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next(
                    (j for j in range(i + 1, len(words)) if words[j].value in (";", "+")),
                    len(words),
                )
                if end > i + 1:
                    self._simple(list(words[i + 1 : end]), depth)
                i = end
            i += 1

    def _names_from_variables(self, base: str, words: list[Word]) -> None:
        """Builtins that set or read variables by name (``read NAME``, ``printf -v NAME``): a
        name taken from a variable is evaluated (a subscript in it runs code), and a literal
        name may be one of :data:`LOADER_VARS` (``read PATH < f``)."""
        option = _NAME_OPTION.get(base)
        for k, w in enumerate(words[1:], 1):
            if not (base in _NAME_TAKERS or (option and words[k - 1].value == option)):
                continue
            if w.value is None:
                self.unvouched.append(f"{short(base)} takes a variable name from a variable")
                return
            if NAME.fullmatch(w.value):
                self._sets(w.value)

    def _declaration(self, node: Any) -> None:
        keyword = node_text(node.children[0])
        words = [Word(keyword, keyword)]
        for c in node.children[1:]:
            if not c.is_named or c.type in _ARGS_SKIP:
                continue
            w = word(c)
            if c.type not in ("variable_assignment", "variable_name") and w.value is None:
                self.unvouched.append(f"{keyword} takes a variable name from a variable")
            if w.value and w.value.startswith("-") and "i" in w.value:
                self.unvouched.append(f"{keyword} -i evaluates values as arithmetic")
            if w.value and w.value.startswith("-") and "n" in w.value:
                self.unvouched.append(f"{keyword} -n makes a name refer to another variable")
            words.append(w)
        self.commands.append(SimpleCommand(tuple(words), (" ".join(w.text for w in words),)))

    def _heredoc(self, node: Any, depth: int) -> bool:
        """A heredoc body: literal when its delimiter is quoted; else expanded like a string in
        double quotes. The grammar reads ``$(…)`` in it but leaves backticks as text, so those
        are found here: `cat <<EOF` then "run `make`" runs make."""
        siblings = node.parent.children if node.parent is not None else []
        start = next((c for c in siblings if c.type == "heredoc_start"), None)
        if start is not None and any(q in node_text(start) for q in "'\"\\"):
            return False
        body = bytearray(node.text)
        for c in node.named_children:  # $(…) is read by the tree; ` inside it is not ours
            if c.type == "command_substitution" and not node_text(c).startswith("`"):
                a, b = c.start_byte - node.start_byte, c.end_byte - node.start_byte
                body[a:b] = b" " * (b - a)
        text = body.decode("utf-8", "replace")
        spans = backtick_spans(text)
        if spans is None:
            self.unvouched.append("a heredoc body with an unclosed backtick")
        for inner in spans or []:
            self.read(inner, depth + 1)
        return True

    def _redirect(self, node: Any) -> None:
        op = "".join(node_text(c) for c in node.children if not c.is_named)
        dest = node.child_by_field_name("destination")
        if dest is None:
            named = [c for c in node.named_children if c.type != "file_descriptor"]
            dest = named[-1] if named else None
        if dest is None or dest.type == "process_substitution":
            return  # >(cmd): the command inside is read like any other
        target = word(dest)
        if op in (">&", "<&") and (dest.type == "number" or target.value == "-"):
            return  # 2>&1, >&-: a file descriptor, not a file
        if op in _WRITE_OPS or (op == "<" and "ERROR" in {c.type for c in node.children}):
            self.writes.append(target)

    def _arithmetic(self, node: Any) -> None:
        for n in [node, *descendants(node)]:
            if n.type in ("arithmetic_expansion", "compound_statement", "(("):
                continue
            if n.is_named and n.type not in _ARITH_OK and not plain_number(n):
                self.unvouched.append("arithmetic on a variable (bash evaluates its value)")
                return

    def _expansion(self, node: Any) -> None:
        kids = node.children
        types = [c.type for c in kids]
        if len(kids) > 1 and types[1] == "!":
            self.unvouched.append("an indirect expansion ${!…}")
        for a, b in zip(types, types[1:], strict=False):
            if a == "@" and b == "P":
                self.unvouched.append("${…@P} expands its value as a prompt, running $(…)")
        if ":" in types:  # ${x:offset:length}: arithmetic
            after = kids[types.index(":") + 1 :]
            if any(c.is_named and not plain_number(c) for c in after):
                self.unvouched.append("a substring offset from a variable (evaluated as code)")

    def _test(self, node: Any) -> None:
        double = node.children and node.children[0].type == "[["
        for n in descendants(node):
            if n.type == "unary_expression":
                op = n.child_by_field_name("operator") or n.children[0]
                if node_text(op) in ("-v", "-R") and any(
                    word(c).value is None for c in n.named_children[1:]
                ):
                    self.unvouched.append("test -v on a name taken from a variable")
            elif double and n.type == "binary_expression":
                ops = [node_text(c) for c in n.children if c.type == "test_operator"]
                if any(o in _ARITH_TEST_OPS for o in ops):
                    self._arithmetic(n)


_LITERAL_LEAVES = _set(
    "raw_string ansi_c_string comment heredoc_start heredoc_end heredoc_body heredoc_content"
)
