"""The token level of ``.step`` files, between lark's lexer and its parser.

:data:`RELATIONS` lists the spellings of the relations; :class:`Continuation`
is the post-lexer given to lark (see the header of ``grammar/step.lark``).
No lark import at module level: :mod:`stepcheck.parser` imports this module
when it is imported itself.
"""
from __future__ import annotations

# the spellings of relations, and the canonical one of each
RELATIONS = {
    "=": "=",
    "<": "<",
    "<=": "<=",
    "≤": "<=",
    ">": ">",
    ">=": ">=",
    "≥": ">=",
    "!=": "!=",
    "≠": "!=",
    "≈": "≈",
    "~=": "≈",
}


class Continuation:
    """Post-lexer: a line that begins with a relation (or an indented ``for``) continues the line above.

    Runs of end-of-line tokens (blank and comment-only lines included) are
    collapsed to the first one, which is dropped when the next token is a
    relation.  An end of line is added at the end of the input.

    Tables: from a line whose first token is the keyword ``table``, the end
    of line before an *indented* line (first token not in column 1) becomes a
    ``_TROW`` token, which starts one row of the table; the first line that
    is not indented ends the table (its end of line stays ``_NL``).
    """

    always_accept = ()

    def process(self, stream):
        from lark import Token

        pending = None
        last = None
        in_table = False
        for tok in stream:
            if tok.type == "_NL":
                if pending is None:
                    pending = tok
                continue
            if pending is not None:
                # an indented `for i != j` line closes the step above it (no statement begins with `for`)
                if tok.value not in RELATIONS and not (tok.type == "FOR" and (tok.column or 1) > 1):
                    if in_table and (tok.column or 1) > 1 and tok.type != "TABLE":
                        yield Token.new_borrow_pos("_TROW", pending.value, pending)
                    else:
                        in_table = False
                        yield pending
                pending = None
            if tok.type == "TABLE":  # a keyword: only ever the start of a statement
                in_table = True
            yield tok
            last = tok
        if pending is not None:
            yield pending
        elif last is not None:
            yield Token(
                "_NL",
                "",
                start_pos=last.end_pos,
                line=last.end_line,
                column=last.end_column,
                end_line=last.end_line,
                end_column=last.end_column,
                end_pos=last.end_pos,
            )
