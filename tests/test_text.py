"""ragdash.ui.text: untrusted text shows as typed wherever Streamlit draws Markdown — no image
from another host, no link, no color, no icon, no emoji, no formula, no heading — and
bidirectional controls show as code points. The routing test reads every UI module and fails
when a Streamlit text call gets a value that did not go through that one path."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from ragdash.ui.text import code, label, literal, visible_controls

ROOT = Path(__file__).resolve().parent.parent
UI = ROOT / "ragdash" / "ui"

#: Every kind of markup a document id, a file name or a URL parameter could smuggle in.
PAYLOADS = [
    "![x](http://evil.example/x.png)",
    "[log in](http://evil.example/login)",
    "<img src=x onerror=alert(1)>",
    "**bold** _it_ ~~gone~~",
    "# heading",
    "heading\n===",
    "> quote",
    "- item",
    "1. item",
    "    indented code",
    "http://evil.example/auto www.evil.example mail@evil.example",
    ":red[alarm] :blue-background[x] :material/warning: :smile:",
    "$x^2$ and $$y$$",
    "&#x202E; &amp; &lt;b&gt;",
    "line one\n\n![x](http://evil.example/y.png)",
    "a | b\n--|--\nc | d",
    "`tick` \\*",
]

#: A CommonMark renderer with GFM's tables, strikethrough and bare-URL links.
GFM = MarkdownIt("gfm-like")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markup_in_untrusted_text_is_shown_as_typed(payload):
    for escaped in (literal(payload), label(payload)):
        html = GFM.render(escaped)
        tags = set(re.findall(r"<(\w+)", html)) - {"p", "br"}
        assert tags == set(), f"{payload!r} became markup: {html}"
        shown = re.sub(r"<br\s*/?>\n?", "\n", html)
        shown = re.sub(r"</?p>", "", shown).strip("\n")
        import html as html_module

        # the word joiners that keep bare URLs from being linked are invisible
        shown = html_module.unescape(shown).replace("\u00a0", " ").replace("\u2060", "")
        want = payload if escaped == literal(payload) else payload.replace("\n", "⟨U+000A⟩")
        assert " ".join(shown.split()) == " ".join(want.split()), html
        if escaped == literal(payload) and payload.startswith(" "):
            assert shown.startswith(" ") and "<pre" not in html  # indentation kept, as text


def test_streamlit_syntax_never_survives_unescaped():
    """Streamlit's own additions: a ``:`` never starts a directive, an icon or a shortcode;
    a ``$`` never opens a formula (Streamlit looks for ``:material/`` and ``:name:`` in the
    raw text, so an escaped colon must break both patterns)."""
    for payload in PAYLOADS:
        for escaped in (literal(payload), label(payload)):
            assert ":material/" not in escaped
            assert not re.search(r":(?!material/|streamlit:)[\w+-][\w_+-]*:", escaped)
            assert not re.search(r"(?<!\\)\$", escaped)
            assert not re.search(r"(?<!\\):\w+\[", escaped)


@pytest.mark.parametrize(
    "char", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
             "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\ufeff", "\u0000", "\x1b"],
)  # fmt: skip
def test_invisible_and_reordering_characters_show_as_code_points(char):
    shown = f"⟨U+{ord(char):04X}⟩"
    assert visible_controls(f"a{char}b") == f"a{shown}b"
    escaped_point = shown.replace("+", "\\+")
    assert label(f"pay {char}evil") == f"pay {escaped_point}evil"
    assert literal(f"pay {char}evil") == f"pay {escaped_point}evil"
    assert code(f"pay {char}evil") == f"`pay {shown}evil`"


def test_a_label_is_one_line_and_literal_keeps_line_breaks():
    assert "\n" not in label("id\n\nmore")
    assert label("id\n\nmore") == "id⟨U\\+000A⟩⟨U\\+000A⟩more"
    # a blank line would end the paragraph (and let the next line be a block): it cannot
    html = GFM.render(literal("id\n\n# heading"))
    assert "<h1" not in html and html.count("<p>") == 1


def test_text_keeps_letters_of_every_script_and_emoji():
    text = "Café 東京 עברית 👩\u200d💻"
    assert visible_controls("Café 東京 עברית") == "Café 東京 עברית"
    assert "👩" in label(text)


def test_code_spans_hold_any_backticks():
    for text in ("a`b", "``x``", "`", " lead", ""):
        html = GFM.render(code(text))
        assert "<code>" in html
        inner = re.search(r"<code>(.*)</code>", html).group(1)
        import html as html_module

        assert html_module.unescape(inner) == (text or " ")


# -- routing: every Streamlit text call in ragdash/ui goes through ragdash.ui.text ---------

#: Streamlit calls whose first positional argument is drawn as Markdown.
FIRST_ARG_MARKDOWN = {
    "markdown", "caption", "info", "warning", "error", "success", "toast", "status",
    "subheader", "header", "title", "expander", "popover", "button", "download_button",
    "checkbox", "toggle", "radio", "selectbox", "multiselect", "select_slider", "slider",
    "text_input", "text_area", "number_input", "date_input", "time_input", "file_uploader",
    "metric", "form_submit_button", "link_button", "page_link", "write", "pills",
    "segmented_control", "color_picker", "tabs",
}  # fmt: skip
#: Keyword arguments drawn as Markdown (tooltips, progress and status text, labels).
MARKDOWN_KEYWORDS = {"label", "text", "help", "body", "format_func"}
#: Calls that make any value safe to draw: the escaping path, and ones that return numbers.
SAFE_CALLS = {
    "literal", "label", "code", "error_text", "len", "fmt_score", "int", "round", "verdict_word",
    "operator_details",  # every field through code(): test_operator_details_escape_every_field
}
#: Calls that keep constant text constant: ``list(FUZZY_RULES)``.
COPY_CALLS = {"list", "tuple", "sorted"}
#: String methods that keep a safe string safe.
SAFE_METHODS = {"capitalize", "upper", "lower", "strip", "title"}
#: Format specs that only numbers accept (a string raises): ``{x:.2f}``, ``{n:,}``, ``{p:.0%}``.
NUMERIC_SPEC = re.compile(r"^[^a-zA-Z]*[bdeEfFgGn%xXo]?$")  # ``,`` alone: thousands
#: Parameters that hold Markdown already escaped by the caller (documented there).
TRUSTED_PARAMETERS = {("render.py", "ranked_passage", "heading")}
#: An emoji shortcode in constant text: icons are ``:material/...:``, never emoji.
EMOJI_SHORTCODE = re.compile(r":(?!material/|streamlit:)[\w+-][\w_+-]*:")
#: Receivers whose ``write``/``update``/``title`` are not Streamlit's.
NOT_STREAMLIT = {"handle", "out", "file", "buffer", "fh", "self"}


def is_constant_name(name: str) -> bool:
    """Module constants (``FIX_LABELS``) hold text written here: constant text."""
    return name.isupper() or (name.startswith("_") and name[1:].isupper())


class Routing:
    """Decides whether an expression is safe Markdown, within one function's assignments."""

    def __init__(self, module: str, function: ast.AST | None) -> None:
        self.module = module
        self.function = function
        self.assigned: dict[str, list[ast.AST]] = {}
        self.params: set[str] = set()
        if function is not None:
            for node in ast.walk(function):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            self.assigned.setdefault(target.id, []).append(node.value)
                elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(
                    node.target, ast.Name
                ):
                    if node.value is not None:
                        self.assigned.setdefault(node.target.id, []).append(node.value)
                elif isinstance(node, ast.NamedExpr):
                    self.assigned.setdefault(node.target.id, []).append(node.value)
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                self.params = {a.arg for a in function.args.args + function.args.kwonlyargs}
        self.checking: set[str] = set()
        self.constants: set[str] = set()
        self.plain_options = False

    def safe(self, node: ast.AST) -> bool:  # noqa: C901, PLR0911, PLR0912 - one case per node type
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.JoinedStr):
            return all(self.safe(v) for v in node.values)
        if isinstance(node, ast.FormattedValue):
            spec = node.format_spec
            if (
                spec is not None
                and isinstance(spec, ast.JoinedStr)
                and all(isinstance(v, ast.Constant) for v in spec.values)
                and node.conversion == -1
            ):
                text = "".join(str(v.value) for v in spec.values)
                if text and NUMERIC_SPEC.match(text) and text[-1] in "bdeEfFgGn%xXo,_":
                    return True
            return self.safe(node.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
            return self.safe(node.left) and self.safe(node.right)
        if isinstance(node, ast.IfExp):
            return self.safe(node.body) and self.safe(node.orelse)
        if isinstance(node, ast.BoolOp):
            return all(self.safe(v) for v in node.values)
        if isinstance(node, ast.List | ast.Tuple):
            return all(self.safe(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(self.safe(v) for v in node.values)
        if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.DictComp):
            inner = self.nested(node, [])
            for gen in node.generators:  # names bound by iterating module constants: constant
                if inner.constant_base(gen.iter) or (
                    isinstance(gen.iter, ast.Call) and inner.constant_base(gen.iter.func)
                ):
                    names = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                    inner.constants |= names
            if isinstance(node, ast.DictComp):
                return inner.safe(node.value)
            return inner.safe(node.elt)
        if isinstance(node, ast.Lambda):
            return self.nested(node, [a.arg for a in node.args.args]).safe(node.body)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                if func.id in COPY_CALLS and len(node.args) == 1:
                    return self.safe(node.args[0])
                if func.id == "plain":  # not Markdown: only where options are plain text
                    return self.plain_options
                if func.id in SAFE_CALLS:
                    return not (self.plain_options and func.id in {"label", "literal", "code"})
                return bool(
                    func.id == "map" and node.args and self.safe_function(node.args[0])
                )
            if isinstance(func, ast.Attribute):
                if func.attr in SAFE_CALLS and isinstance(func.value, ast.Name):
                    return func.value.id in {"text", "render"}
                if func.attr in SAFE_METHODS:
                    return self.safe(func.value)
                if func.attr == "join":
                    return self.safe(func.value) and all(self.safe(a) for a in node.args)
                if func.attr == "get":
                    base_safe = self.constant_base(func.value) or self.safe(func.value)
                    return base_safe and all(self.safe(a) for a in node.args[1:])
            return False
        if isinstance(node, ast.Subscript):
            return self.constant_base(node.value) or self.safe(node.value)
        if isinstance(node, ast.Starred):
            return self.safe(node.value)
        if isinstance(node, ast.Name):
            return self.safe_name(node.id)
        return False

    def constant_base(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        return isinstance(node, ast.Name) and (
            is_constant_name(node.id) or node.id in self.constants
        )

    def safe_name(self, name: str) -> bool:
        if is_constant_name(name) or name in self.constants:
            return True
        if (self.module, getattr(self.function, "name", ""), name) in TRUSTED_PARAMETERS:
            return True
        values = self.assigned.get(name)
        if not values or name in self.params or name in self.checking:
            return False
        self.checking.add(name)
        try:
            return all(self.safe(v) for v in values)
        finally:
            self.checking.discard(name)

    def safe_function(self, node: ast.AST, plain_options: bool = False) -> bool:
        """A ``format_func``: the escaping path itself, a constant mapping's ``get``, or a
        lambda whose result is safe."""
        if isinstance(node, ast.Name):
            return node.id == ("plain" if plain_options else "label")
        if isinstance(node, ast.Attribute) and node.attr == "get":
            return self.constant_base(node.value)
        if isinstance(node, ast.Lambda):
            inner = self.nested(node, [a.arg for a in node.args.args])
            inner.plain_options = plain_options
            return inner.safe(node.body)
        return False

    def nested(self, node: ast.AST, params: list[str]) -> Routing:
        """A lambda's or comprehension's scope: the enclosing names, less its parameters."""
        inner = Routing(self.module, None)
        inner.function = self.function
        inner.assigned = {k: v for k, v in self.assigned.items() if k not in params}
        inner.params = (self.params - set(params)) | set(params)
        inner.constants = set(self.constants) - set(params)
        inner.plain_options = self.plain_options
        return inner


#: Elements whose options are plain text (a backslash would show): ``format_func`` uses
#: :func:`ragdash.ui.text.plain` there, :func:`ragdash.ui.text.label` everywhere else.
PLAIN_OPTIONS = {"selectbox", "multiselect"}


#: Elements that draw a table on a canvas: their data goes through
#: :func:`ragdash.ui.text.grid` (a raw U+202E in a cell reverses it; issue 24 #9), as does
#: an Altair chart's (its axis labels and tooltips show the data's text).
GRIDS = {"dataframe", "data_editor", "table"}


#: Elements that show their text as it is (monospace blocks): :func:`ragdash.ui.text.plain`
#: or, for several lines, ``visible_controls(text, keep_newlines=True)``.
PLAIN_BLOCKS = {"code", "text"}


def is_grid_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id in ("grid", "colored_grid")  # colored_grid is grid, styled
    )


def text_arguments(call: ast.Call) -> list[tuple[str, ast.AST]]:
    """The arguments of ``call`` that Streamlit draws as Markdown (none if it is not a
    Streamlit text call)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return []
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in NOT_STREAMLIT:
        return []
    name = func.attr
    found: list[tuple[str, ast.AST]] = []
    if name in FIRST_ARG_MARKDOWN and call.args:
        found.append(("argument 1", call.args[0]))
    options = call.args[1] if len(call.args) > 1 else None
    options = next((k.value for k in call.keywords if k.arg == "options"), options)
    has_format = any(k.arg == "format_func" for k in call.keywords)
    choices = PLAIN_OPTIONS | {"radio", "pills", "segmented_control"}
    if name in choices and options is not None and not has_format:
        found.append(("options", options))  # options from data need format_func
    if name == "progress" and len(call.args) > 1:
        found.append(("argument 2", call.args[1]))
    if name in PLAIN_BLOCKS and call.args:
        found.append(("plain text", call.args[0]))
    if name == "Chart" and isinstance(receiver, ast.Name) and receiver.id == "alt":
        if call.args:  # a chart's labels and tooltips show its data's text
            found.append(("grid data", call.args[0]))
        return found
    if name in GRIDS:
        data = call.args[0] if call.args else None
        data = next((k.value for k in call.keywords if k.arg == "data"), data)
        if data is not None:
            found.append(("grid data", data))
    if name in FIRST_ARG_MARKDOWN | {"progress", "update", "dataframe", "data_editor"} or (
        name == "progress"
    ):
        for kw in call.keywords:
            if kw.arg in MARKDOWN_KEYWORDS:
                found.append((kw.arg, kw.value))
    return found


def enclosing_functions(tree: ast.AST) -> dict[ast.AST, ast.AST | None]:
    owner: dict[ast.AST, ast.AST | None] = {}

    def visit(node: ast.AST, function: ast.AST | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            owner[child] = function if child is inner and inner is not function else inner
            visit(child, inner)

    visit(tree, None)
    return owner


def is_page(node: ast.AST) -> bool:
    """``pages().NAME``: one of the st.Page objects ragdash.ui.navigation makes."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "pages"
    )


def unrouted(path: Path) -> list[str]:
    """Streamlit text calls in ``path`` fed something that is not routed through
    ragdash.ui.text, as ``file:line: call(argument)``."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    owner = enclosing_functions(tree)
    problems = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for where, value in text_arguments(node):
            if node.func.attr == "page_link" and where == "argument 1" and is_page(value):
                continue  # an st.Page object (ragdash.ui.navigation), its title a constant
            routing = Routing(path.name, owner.get(node))
            plain_options = node.func.attr in PLAIN_OPTIONS
            if where == "grid data":
                ok = is_grid_call(value) or (
                    isinstance(value, ast.Name)
                    and bool(routing.assigned.get(value.id))
                    and all(is_grid_call(v) for v in routing.assigned[value.id])
                )
            elif where == "plain text":
                ok = isinstance(value, ast.Constant) or (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Name)
                    and value.func.id in {"plain", "visible_controls"}
                )
            elif where == "format_func":
                ok = routing.safe_function(value, plain_options)
            else:
                ok = routing.safe(value)
            shortcodes = [
                c.value
                for c in ast.walk(value)
                if isinstance(c, ast.Constant)
                and isinstance(c.value, str)
                and EMOJI_SHORTCODE.search(c.value)
            ]
            if shortcodes:  # would turn on Streamlit's emoji plugin for the data beside it
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: emoji {shortcodes}")
            if not ok:
                raw = [
                    ast.unparse(part)
                    for part in ast.walk(value)
                    if isinstance(part, ast.FormattedValue | ast.Name) and not routing.safe(part)
                ]
                problems.append(
                    f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.attr}({where}) "
                    f"gets {ast.unparse(value)[:70]} — raw: {', '.join(raw)[:120]}"
                )
    return problems


def test_every_streamlit_text_call_goes_through_the_escaping_path():
    problems = [p for path in sorted(UI.rglob("*.py")) for p in unrouted(path)]
    assert problems == [], "route these through ragdash.ui.text:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("snippet", "ok"),
    [
        ("st.caption(f'Page {n} · {len(page)} characters')", False),
        ("st.caption(f'Page {literal(n)} · {len(page)} characters')", True),
        ("st.markdown(doc.doc_id)", False),
        ("st.warning(literal(x), icon=':material/warning:')", True),
        ("st.expander(f'{doc.doc_id} — {doc.subject}')", False),
        ("st.selectbox('Case', names, format_func=lambda n: n)", False),
        ("st.selectbox('Case', names, format_func=label)", False),  # options are plain text
        ("st.selectbox('Case', names, format_func=plain)", True),
        ("st.radio('Case', names, format_func=label)", True),
        ("st.caption('Done :tada:')", False),
        ("st.selectbox('Expected document', doc_ids)", False),
        ("st.selectbox('Status', STATUSES)", True),
        ("bar.progress(0.5, text=f'Reading {name}')", False),
        ("bar.progress(0.5, f'{name} (1/3)')", False),
        ("bar.progress(0.5, text=f'Reading {label(name)} {score:.2f}')", True),
        ("st.tabs([f'Pages ({len(pages)})', doc.source])", False),
        ("st.button('Save', help=FIX_HELP[name])", True),
        ("st.dataframe(pd.DataFrame(page), hide_index=True)", False),
        ("x.dataframe(page, hide_index=True)", False),
        ("st.dataframe(data=page)", False),
        ("st.dataframe(literal(page))", False),  # Markdown escaping is not the grid's
        ("st.dataframe(grid(pd.DataFrame(page)), hide_index=True)", True),
        ("st.dataframe(data=grid(page))", True),
        ("alt.Chart(x).mark_rect()", False),
        ("alt.Chart(grid(x)).mark_rect()", True),
        ("st.code(x, language=None)", False),
        ("st.code(plain(x), language=None)", True),
    ],
)
def test_the_routing_check_tells_escaped_from_raw(tmp_path, snippet, ok):
    """The check itself: it catches raw values and lets the escaping path through."""
    module = tmp_path / "page.py"
    module.write_text(
        f"def page(n, page, doc, names, name, score, x, pages, doc_ids):\n    {snippet}\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert (unrouted(module) == []) is ok, unrouted(module)
    finally:
        ROOT = saved


def test_operator_details_escape_every_field():
    """The sidebar's description of the operator's retriever shows the template path (any
    file name), the field paths and the auth variable's name through ``code()``: Markdown,
    HTML and bidi controls in them stay text."""
    from ragdash.retrieval.spec import RetrieverSpec
    from ragdash.ui.retriever_picker import operator_details

    hostile = "**bold** <b>x</b> [l](http://e.x) \u202e"
    spec = RetrieverSpec(kind="http", url="http://127.0.0.1:9/s", body_template=hostile)
    shown = operator_details(spec)
    outside_code = re.sub(r"(`+).*?\1", "", shown)
    assert "\u202e" not in shown and "⟨U+202E⟩" in shown
    assert "<b>" not in outside_code and "](http" not in outside_code and "**" not in outside_code
