"""Every diagnostic code stepcheck emits, in one table, each documented.

A diagnostic's ``code`` (``E-fails``, ``W-unneeded``, ...) is its stable,
machine-readable name: it appears in the JSON report, in pytest failures and
after ``verify --explain``.  :data:`CODES` maps each code to its severity, a
one-line title and an explanation written for the user: what it means, a
minimal ``.step`` example that triggers it, and how to fix it.

:func:`stepcheck.errors.error` refuses a code that is not in this table, and
``tests/test_codes.py`` checks that every code literal in the package is
here, that every entry here is emitted somewhere, and that every ``.step``
example really produces its code.  ``docs/diagnostics.md`` is generated from
this table (``python scripts/gen_diagnostics.py``; ``python -m
stepcheck.codes`` prints it).

This module is pure data and imports nothing beyond the standard library:
``verify --explain`` loads it without sympy or lark.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str
    severity: str  # "error" | "warning" | "note"
    group: str  # a key of GROUPS
    title: str  # one line
    explanation: str  # what it means (paragraphs separated by blank lines)
    fix: str  # how to fix it
    example: str | None = None  # a .step text that produces this code (checked by tests/test_codes.py)
    trigger: str | None = None  # how to get it when no .step text can: a command, an API call, or why not
    strict: bool = False  # the example needs --strict
    reserved: str | None = None  # set when nothing emits the code any more: why it stays in the table


# (key, heading, introduction), in pipeline order
GROUPS = (
    ("input", "Reading the input",
     "The file could not be read as `.step` text: nothing in it is checked, and the exit code is 2 (except for "
     "the warning `W-empty`, an empty file)."),
    ("syntax", "Syntax",
     "The text is not valid `.step`. A syntax error stops the file: no step is checked; the exit code is 2."),
    ("names", "Names, declarations and indices",
     "A declaration or a use of a name is wrong. The statement concerned is not checked (a step with such an "
     "error is `unknown`) and the rest of the file still is; the exit code is 2."),
    ("expressions", "Expressions",
     "An expression cannot be read: a function with the wrong arguments, a division by zero, a number too "
     "large, something not supported. As for names, the statement is not checked and the exit code is 2."),
    ("assumptions", "Assumptions",
     "The assumptions of the file, taken together, are wrong."),
    ("steps", "Steps and citations",
     "The result of checking a link of a `step` chain, or what its `by` list cites."),
    ("refute", "Refutations",
     "The result of a `refute` statement (which claims that a statement does not follow)."),
    ("numbers", "Numbers: check, table, simulate",
     "The result of a numeric claim (`check`, `table`, `simulate`), or an error in how it is written."),
    ("api", "Python API",
     "Raised by `stepcheck.check(...)` in Python, never by `verify`."),
)

_TABLE = (
    # ------------------------------------------------------------------ input
    Code(
        "E-cannot-read", "error", "input", "a path given to `verify` cannot be read",
        "A path on the `verify` command line is not a file stepcheck can check: it does not exist, it is not "
        "a regular file (a device, a socket), or it is a directory with no `.step` file in it (files under "
        "`bad/` and hidden subdirectories do not count). The other paths are still checked.",
        "Check the spelling of the path. Give a `.step` file, or a directory that contains `.step` files; to "
        "check files under a `bad/` directory, name that directory or its files directly.",
        trigger="`verify no/such/file.step`",
    ),
    Code(
        "E-input-not-found", "error", "input", "file not found",
        "The file given to the Python API (`stepcheck.verify_file`, `stepcheck.checker.check_file`) does not "
        "exist. (`verify` on the command line reports a missing path as `E-cannot-read`.)",
        "Check the path; a relative path is relative to the current directory of the Python process.",
        trigger='`stepcheck.verify_file("no/such/file.step")` in Python',
    ),
    Code(
        "E-input-directory", "error", "input", "the path is a directory, not a `.step` file",
        "The Python API checks one file, and was given a directory. (`verify DIR` on the command line checks "
        "every `.step` file under the directory.)",
        "Give the path of a `.step` file inside the directory, or run `verify DIR`.",
        trigger='`stepcheck.verify_file("derivations")` in Python',
    ),
    Code(
        "E-input-unreadable", "error", "input", "the file exists but cannot be read",
        "Opening or reading the file failed: no permission, an I/O error, or (through the Python API) a "
        "socket or device instead of a file. The message gives the reason the operating system reported.",
        "Make the file readable by the user running stepcheck (`chmod u+r FILE`), or check a copy of it.",
        trigger="`verify FILE`, with FILE a file you may not read",
    ),
    Code(
        "E-input-binary", "error", "input", "the input is not UTF-8 text",
        "A `.step` file is UTF-8 text. The file contains a NUL byte (it is probably binary) or a byte sequence "
        "that is not valid UTF-8 (it was probably saved in another encoding, such as Latin-1 or GBK); the "
        "message gives the byte offset, and the line and column, of the first bad byte. The Python API also "
        "reports it when it is given something that is not a `str`.",
        "Save the file as UTF-8 (every editor can; `iconv -f GBK -t UTF-8 old.step > new.step` converts one). "
        "A byte-order mark at the start is allowed and removed.",
        trigger="`verify FILE`, with FILE saved as Latin-1 and containing `é`",
    ),
    Code(
        "E-input-too-large", "error", "input", "the input is too large",
        "The file is larger than 1,000,000 bytes, the most stepcheck reads in one file. The limit keeps "
        "checking fast and protects against being given a huge file by mistake.",
        "Split the derivation into several smaller files; a file can restate what it needs from another one as "
        "assumptions.",
        trigger="`verify FILE`, with FILE larger than 1,000,000 bytes",
    ),
    Code(
        "W-empty", "warning", "input", "this file has no statements",
        "The file is empty, or holds only comments and blank lines, so there is nothing to check. It is a "
        "warning, not an error: the exit code stays 0.",
        'Start the file with `derivation NAME "title"` and write its declarations and steps; see the tutorial.',
        example="# nothing but a comment\n",
    ),
    # ----------------------------------------------------------------- syntax
    Code(
        "E-syntax", "error", "syntax", "syntax error",
        "The text does not follow the grammar of the `.step` language: an unexpected character or word, a "
        "bracket never closed or closed by the wrong bracket, an unterminated string, a keyword used as a name "
        "(`let E: real`). The caret points at the first place where the text stops making sense, and the "
        "`help:` line usually says what was expected there. A statement ends at the end of its line, so an expression "
        "cannot continue on the next line inside brackets.",
        "Correct the text at the caret. Write a continued chain with the relation at the start of each new "
        "line (`    = ...`), and split long expressions with `define` or into several steps. The language "
        "reference (docs/language.md) lists every form.",
        example="random X\nstep broken: E[X + 1\n    = E[X] + 1\n",
    ),
    Code(
        "E-nesting", "error", "syntax", "expression nested too deeply",
        "More than 200 brackets are open at once, or an expression has operators nested more than 300 deep. "
        "The limits keep the parser and the checker from running out of stack on generated input.",
        "Name inner parts with `define`, or split the expression into several steps; write long sums as "
        "`sum(i=1..n, ...)` rather than `a_1 + (a_2 + (...))`.",
        trigger="a line holding 201 nested `(`, such as `step s: ((((...x...)))) = x`",
    ),
    Code(
        "E-too-long", "error", "syntax", "statement too long",
        "A line holds more than 20,000 characters of code (comments do not count). A statement ends at the end "
        "of its line, so this is one statement longer than stepcheck accepts.",
        "Split the expression into several steps, or name parts of it with `define`.",
        trigger="a line of more than 20,000 characters, such as `step s: x + x + ... + x = 10001 x`",
    ),
    Code(
        "E-internal-parser", "error", "syntax", "internal error while parsing",
        "The parser failed in a way it should not (a bug in stepcheck, not in your file). It is reported as an "
        "input error with the Python exception in a note, instead of a traceback.",
        "Please report it with the input that caused it. Rewriting the statement at fault in another way "
        "usually avoids it meanwhile.",
        trigger="none known: it would be a bug in the parser",
    ),
    # ------------------------------------------------------------------ names
    Code(
        "E-unknown-name", "error", "names", "unknown name",
        "A name is used that is not declared (every name must be declared before use), a family is used "
        "without an index (`q` instead of `q_i`), or a subscript is applied to something that is not an "
        "indexed family. Functions that are not part of the language, such as `sin` or `cosh`, are unknown "
        "names too. The `help:` line names the closest declared name when there is one.",
        "Fix the spelling, or declare the name first: `let x: real`, `random X`, `real s_i for i in 1..n`. "
        "Write a family member with its index: `q_i`, `q_1`, `q[i]`.",
        example="random X, Y\nstep s: E[Xx] = 0\n",
    ),
    Code(
        "E-redeclared", "error", "names", "a name is declared twice",
        "The same name is declared twice, or a step, check or assumption label is used twice. Names, families "
        "and definitions share one namespace; step names and assumption labels share another. A note gives "
        "where the name was first declared.",
        "Rename one of the two, or delete the second declaration.",
        example="let x: real\nlet x: real\n",
    ),
    Code(
        "E-ambiguous", "error", "names", "a name could mean two things",
        "A name such as `q_i` is declared on its own, and `q` is also a family indexed by `i`, so `q_i` could "
        "be either the plain name or member `i` of the family. stepcheck never guesses.",
        "Rename one of them: for example call the plain name `qi` or the family `u`.",
        example="let i: index 1..3\nrandom q_i for i in 1..3\nlet q_i: real\nstep s: q_i = q_i\n",
    ),
    Code(
        "E-type", "error", "names", "unknown type",
        "A `let` declaration names a type stepcheck does not know. The grammar accepts only the types "
        "`positive integer`, `integer`, `real`, `positive real`, `nonnegative real` and `index LO..HI`, so a "
        "`.step` file gets an `E-syntax` error first; this code guards the checker against syntax trees built "
        "some other way.",
        "Use one of the types above: `let n: positive integer`, `let x: real`, `let i: index 1..n`.",
        trigger="not reachable from a `.step` file (the grammar rejects an unknown type as `E-syntax`)",
    ),
    Code(
        "E-index", "error", "names", "not a valid index",
        "Something used as an index is not one: an index range (`let i: index LO..HI`, `for i in LO..HI`) or "
        "summation bounds that are not whole numbers or integer names, a subscript that is neither an index "
        "name nor a whole number, `for i in ...` with `i` already declared as something other than an index, "
        "or an index applied to a function call other than `softmax(...)`.",
        "Declare bounds as integers (`let n: positive integer`, then `let i: index 1..n`), and index families "
        "with index names or whole numbers: `q_i`, `q_2`, `q[n]`.",
        example="let x: real\nlet i: index 1..x\n",
    ),
    Code(
        "E-shape", "error", "expressions", "the shapes of matrices or vectors do not match",
        "A product `A B` where A has not as many columns as B has rows, a sum or a link between matrices of "
        "different shapes, a matrix added to or compared with a number, or a matrix (or a family read as a "
        "vector) where a number is expected. The label names both shapes.",
        "Check the shapes: `Q K^T` for two n × d_k matrices, not `Q K`; take an entry (`(Q K^T)_{i, j}`, "
        "`p_i`) where a number is meant; write `0` for the zero matrix.",
        example="let n, d_k: positive integer\nlet Q, K: matrix n × d_k\nstep s: Q K = Q K\n",
    ),
    Code(
        "E-family", "error", "names", "a family member does not use the family index",
        "In `random NAME_i for i in LO..HI` (or `real ...`), every name must end in `_` followed by the family "
        "index, so that the family is called `NAME` and its members `NAME_i`, `NAME_1`, ...",
        "Write the names with the index of the `for`: `random q_i, k_i for i in 1..n`.",
        example="let n: positive integer\nrandom q_j for i in 1..n\n",
    ),
    Code(
        "W-family-index", "warning", "names", "a family declared with an index of another range",
        "`random u_i for i in 1..64` where `i` is already an index over another range (`let i: index "
        "1..d_k`): the family is declared over 1..64, but `u_i` with that `i` means i in 1..d_k, so facts "
        "such as `E[u_i] = 0` speak of members 1..d_k only, and steps about sums over 1..64 stay unknown.",
        "Give the family an index of its own: `random u_r for r in 1..64`.",
        example="let d_k: positive integer\nlet i: index 1..d_k\nrandom u_i for i in 1..64\n",
    ),
    Code(
        "E-range", "error", "names", "an index is outside the range of its family",
        "A family member is used with a number outside the declared range (`q_5` when `q` is declared for "
        "`1..4`), or with an index that ranges beyond it (`i` over `1..n+1` for a family over `1..n`), or an "
        "entry of `softmax([...])` outside `1..length`. A note gives the declared range.",
        "Use an index inside the range, or declare the family (or the index) with the range you mean.",
        example="let i: index 1..4\nrandom q_i for i in 1..4\nstep s: E[q_5] = 0\n",
    ),
    Code(
        "E-not-random", "error", "names", "not a random variable",
        "`independent(...)` takes random variables and random families, and was given something "
        "deterministic: a constant, a `real` family, an expression that is not a random variable.",
        "Declare what is random with `random` (`random X`, `random q_i for i in 1..n`), or leave the "
        "deterministic quantity out of the independence assumption: constants are independent of everything.",
        example="let n: positive integer\nreal s_i for i in 1..n\nrandom X\nassume indep: independent(s, X)\n",
    ),
    Code(
        "E-distribution", "error", "names", "invalid parameters for a distribution",
        "The parameters of a distribution in `random X ~ LAW(...)` are certainly invalid: a probability "
        "outside [0, 1], a variance that is not positive, `Uniform(a, b)` with `a >= b`, a number of trials "
        "that is not a positive whole number, `DiscreteUniform(a, b)` with bounds that are not whole numbers "
        "or with `a > b`; or a parameter is a vector or a family member instead of a number or a declared "
        "constant.",
        "Give valid parameters: `Bernoulli(p)` with 0 <= p <= 1, `Normal(mean, variance)` with a positive "
        "variance (the second parameter is the variance, not the standard deviation), `Uniform(a, b)` with "
        "a < b, `Binomial(n, p)` with a positive whole number n, `DiscreteUniform(a, b)` with whole numbers "
        "a <= b.",
        example="random B ~ Bernoulli(2)\n",
    ),
    # ------------------------------------------------------------ expressions
    Code(
        "E-arity", "error", "expressions", "wrong number of arguments",
        "A function, operator or distribution is given the wrong number (or the wrong form) of arguments: "
        "`Cov(X)`, `log(x, b, c)`, `max(x)`, `diff(f)`, `limit(f, x)`, `P(X)` without an event, "
        "`uncorrelated(X, Y, Z)`, `independent(X)`, `Normal(0)`. The `help:` line, when there is one, shows "
        "the expected form.",
        "Write the call as shown in the `help:` line: `Cov(X, Y)`, `diff(f, x)`, `limit(f, x -> a)`, "
        "`max(f, x in [a, b])`, `P(X > 0)`.",
        example="random X, Y\nstep s: Cov(X) = 0\n",
    ),
    Code(
        "E-number", "error", "expressions", "cannot read a number",
        "A number literal could not be converted to an exact rational. The grammar only accepts numbers that "
        "can be (`3`, `2.5`, `1e-9`), so a `.step` file does not reach this; it guards the elaborator "
        "against syntax trees built some other way.",
        "Write numbers as digits with an optional decimal part and exponent: `3`, `2.5`, `3.8e-11`.",
        trigger="not reachable from a `.step` file (the grammar accepts only well-formed numbers)",
    ),
    Code(
        "E-undefined", "error", "expressions", "no value: division by zero, no real value, a limit that cancels out",
        "An expression divides by something that is exactly zero once it is read (`x / 0`, `1 / (2 - 2)`), "
        "so it has no value. Or it has no real value anywhere: a square root of a negative number, the "
        "logarithm of a number ≤ 0 (`sqrt(-4) sqrt(-9)`, which sympy computes as −6 through complex numbers; "
        "`sqrt(-c)` for a declared positive `c`); in a `check`, such a value with positive probability "
        "(`E[sqrt(W)^2]` for `W ~ Uniform(-1, 1)`). Or a mean, a variance or a covariance is infinite "
        "under a declared law, so it has no value (`E[1/U]` for `U ~ Uniform(0, 1)`, `E[exp(Z^2)]` for a "
        "standard Normal; see language.md, Means that do not exist). Or `max`/`min` is taken over an interval where the "
        "expression is not defined everywhere (`max(log(x), x in [-3, 1])`), or a limit is taken where the "
        "expression has no value near the point (`limit(log(t), t -> -1)`). Or an operation makes a limit "
        "disappear before its value is known "
        "(`0 * limit(t, t -> oo)`, `L - L` for a defined limit `L`): if the limit is infinite, ∞·0 and ∞ − ∞ "
        "have no value, although sympy would write 0.",
        "Correct the expression. If the denominator is zero only for some values, declare what keeps it away "
        "from zero (`let c: positive real`) or state it as an assumption. Write a mean only of a quantity whose "
        "mean is finite. Take an extremum over an interval "
        "where the expression is defined. For a limit, prove its value in a "
        "step of its own and compute with that value.",
        example="let x: real\nstep s: x / 0 = 0\n",
    ),
    Code(
        "E-limit", "error", "expressions", "a size limit of stepcheck is exceeded",
        "The input exceeds one of the limits that keep checking fast: a numeric exponent larger than 1,000 "
        "(`x^100000`), an integer power with more than 20,000 digits, a decimal exponent beyond ±400 "
        "(`1e999`), more than 2,000 steps in one file, more than 10,000,000 samples in a `simulate`, or an "
        "input nested too deeply for the parser.",
        "Rewrite the claim with smaller numbers (keep the exponent symbolic: `let m: positive integer`, then "
        "`x^m`), split the file, or lower `samples`.",
        example="random X, Y\nstep s: E[(X + Y)^100000] = 0\n",
    ),
    Code(
        "E-unsupported", "error", "expressions", "not supported by this version",
        "The input uses something the language has words for but this version of stepcheck does not "
        "support: `use \"file.step\"` (importing another file), a function it does not evaluate (such as "
        "`sum(v_i)` without bounds), a distribution it does not know (`Poisson`), nested vectors, an event "
        "that compares vectors.",
        "Work around it: copy the facts you need from another file as assumptions, write sums with their "
        "bounds (`sum(i=1..n, v_i)`), and use one of the supported distributions (docs/language.md lists "
        "them).",
        example='use "var_dot.step"\n',
    ),
    Code(
        "E-softmax", "error", "expressions", "softmax needs a vector",
        "The argument of `softmax` must be a vector: a list `[a, b, ...]` or an expression in one indexed "
        "family (`softmax(s)`, `softmax(s / T)`). `softmax(s)` is the vector of its entries, `softmax(s)_i` "
        "one entry.",
        "Give a list, `softmax([a, b])`, or an expression in one declared family: `softmax(s)_i`.",
        example="let x: real\nstep one: softmax(x)_1 = 1\n",
    ),
    Code(
        "E-calculus", "error", "expressions", "a derivative, limit or extremum is written wrongly",
        "In `diff(f, x)` the variable must be a name or a family member, not an expression, and not a random "
        "variable. In `limit(f, x -> a)`, `max(f, x in [a, b])`, `min`, `argmax` and `argmin` the bound "
        "variable must be a name that is not an index; `limit` needs `->`, and the others `x in [a, b]` "
        "with a two-element interval.",
        "Differentiate with respect to a deterministic variable (declare it `let x: real`), and write the "
        "forms `limit(f, x -> a)` and `max(f, x in [a, b])`.",
        example="random X\nlet x: real\nstep s: diff(X x, X) = x\n",
    ),
    # ------------------------------------------------------------ assumptions
    Code(
        "E-inconsistent", "error", "assumptions", "contradictory assumptions",
        "The assumptions of the file cannot all hold at once: one quantity is given two values "
        "(`Var(X) = 1` and `Var(X) = 2`), a variance, a standard deviation or an even moment is set to a "
        "negative number, bounds by numbers leave a name no value (`x > 1` and `x < 0`, or `c < 0` for a "
        "declared positive `c`), a random variable bounded almost surely is given a mean outside its "
        "bounds (`X > 0` and `E[X] = -1`), a bound breaks Cauchy-Schwarz (`Cov(X, Y) > 2` with unit "
        "variances), the equations have no real solution (`x^2 - 2 x + 2 = 0`; `E[Z^2] = 1/2` for "
        "`Z ~ Normal(m, 1)`), or a mean lies outside the range of its function (`E[tanh(X)] = 2`). From "
        "contradictory facts every claim would follow, so no step is counted as verified from them. The "
        "caret points at the first assumption of the contradictory group, and the title names them all.",
        "Correct the values, or drop one of the assumptions. Remember that a variance cannot be negative and "
        "that `Normal(m, v)` gives the variance `v`.",
        example="random X\nassume v1: Var(X) = 1\nassume v2: Var(X) = 2\nstep s: E[X] = E[X]\n",
    ),
    Code(
        "W-unchecked-assumptions", "warning", "assumptions", "the assumptions could not be checked for contradictions",
        "Before any step, stepcheck checks that the assumptions can all hold at once. Their equations form a "
        "polynomial system; when it is too large to solve in bounded time (many unknowns, high degrees), or the "
        "check runs out of the time of one link (`--timeout`), it is cut short and this warning says so. A step "
        "whose proof uses these facts stays unknown, so nothing is proved from facts that were not checked. If "
        "the check stops on an internal "
        "error (a bug: please report it), the warning says so too; the steps are still checked, but a "
        "contradiction among those facts may go unseen.",
        "Split the assumptions into smaller groups, or state lower-degree facts (a moment of a sum rather than "
        "of its 18th power).",
        example="let x, y, z: real\nassume a1: (x + y + z)^7 = 1\nassume a2: (x + y + z)^8 = 2\n"
                "step s: x = 0   by a1, a2\n",
    ),
    # ------------------------------------------------------------------ steps
    Code(
        "E-fails", "error", "steps", "this step does not hold",
        "The link is false: stepcheck found a counterexample (a finite model of the assumptions it may use in "
        "which the two sides differ, or concrete values) or a residual that is never zero. The notes give the "
        "residual, left side minus right side after normalisation, and the report shows the counterexample. "
        "A link that fails is never counted as verified, and the exit code is 1.",
        "Correct the step: often a factor, a sign or a square is wrong (`Var(2 X)` is `4 Var(X)`). If the "
        "step is true only under an assumption you forgot, state it with `assume` and cite it with `by`.",
        example="random X, Y\nstep s: Var(X + Y) = Var(X) + Var(Y)\n",
    ),
    Code(
        "E-unknown", "error", "steps", "could not verify this step",
        "The kernel could not prove the link, and no counterexample was found either: the step is `unknown`. "
        "Not proved is not the same as false, but an unknown step is never counted as verified (exit code 1). "
        "The notes give the residual when there is one.",
        "Split the step into smaller links that the kernel rules cover (docs/kernel.md), cite the facts it "
        "needs with `by`, or state a needed fact as an assumption.",
        example="let x: positive real\nstep s: exp(x) >= 1 + x + x^2/2 + x^3/6 + x^4/24\n",
    ),
    Code(
        "N-no-counterexample", "note", "steps", "no counterexample found",
        "The kernel did not prove a link, and the search for a finite counterexample found none within its "
        "limits (or could not search, for example because a variable has a law that is not finite). It is "
        "printed above the link's error (usually `E-unknown`), and says which limits the search used.",
        "Nothing to fix by itself: it explains an `E-unknown`. Simplify or split the step so that the kernel "
        "can prove it, or so that a small counterexample exists if the step is wrong.",
        example="let x: positive real\nstep s: exp(x) >= 1 + x + x^2/2 + x^3/6 + x^4/24\n",
    ),
    Code(
        "E-cites-too-little", "error", "steps", "this step cites too little",
        "The link has a `by` list, the facts it cites do not suffice, but the link follows once other "
        "assumptions in scope are added. The label names what is missing, and a note describes each missing "
        "assumption. With `by`, what is cited must suffice; this keeps each step honest about what it uses. "
        "When a finite model of the cited facts alone refutes the link (it is shown), the link fails; when "
        "none is found, the title says the step *may* cite too little and the link is unknown: the kernel "
        "is not complete, so not proving it from the citation does not show the citation insufficient.",
        "Add the missing labels to the `by` list, or leave `by` out and let the checker infer and report what "
        "the link needs.",
        example="let n: positive integer\nlet i: index 1..n\nrandom q_i, k_i for i in 1..n\n"
                "assume indep: independent(q, k)\nassume mean0: E[q_i] = 0, E[k_i] = 0\n"
                "step mean_term: E[q_i k_i] = 0   by mean0\n",
    ),
    Code(
        "W-unneeded", "warning", "steps", "cited but not needed",
        "The link holds, but something in its `by` list is not needed: the link also holds without it. It is "
        "a warning (exit code 0) unless `verify --strict` is given, which makes it the error `E-unneeded`.",
        "Remove the label from `by`.",
        example="random X, Y\nassume mean0: E[X] = 0\nstep s: E[X + Y] = E[X] + E[Y]   by mean0\n",
    ),
    Code(
        "W-one-line-by", "warning", "steps", "a `by` at the end of a line of several links",
        "A `by` list belongs to the link it ends. In `step s: A = B = C   by r` it cites `r` for `= C` only; "
        "`= B` has no `by` and is checked against every assumption in scope, so what it uses is reported "
        "but never checked against a citation. The warning points at each such link.",
        "Put each link on its own line (a line that begins with `=` continues the chain), each with its "
        "own `by`.",
        example="random X, Y\nassume mean0: E[X] = 0, E[Y] = 0\nstep s: E[X + Y] = E[X] + E[Y] = 0   by mean0\n",
    ),
    Code(
        "E-unneeded", "error", "steps", "cited but not needed (under --strict)",
        "The same as `W-unneeded`, reported as an error because `verify --strict` (or `strict=True` in the "
        "Python API) was given: the link holds, but something cited after `by` is not needed. The exit code "
        "is 1.",
        "Remove the label from `by`, or run without `--strict`.",
        example="random X, Y\nassume mean0: E[X] = 0\nstep s: E[X + Y] = E[X] + E[Y]   by mean0\n",
        strict=True,
    ),
    Code(
        "E-unverified-citation", "error", "steps", "this step rests on an unverified step",
        "The link cites an earlier step that does not hold (it fails or is unknown), and the link needs it. "
        "The link would follow from that step, but nothing built on an unverified step is verified, so it is "
        "`unknown`.",
        "Fix the cited step first; this error goes away once it holds.",
        example="random X, Y\nstep wrong: Var(X + Y) = Var(X) + Var(Y)\n"
                "step later: Var(X + Y) - Var(Y) = Var(X)   by wrong\n",
    ),
    Code(
        "E-unknown-ref", "error", "steps", "unknown reference",
        "A name after `by` (in a `step`), after `under` (in a `refute`) or after `by` (in a `simulate`) is not "
        "an assumption label, an earlier step or a kernel rule name. A step can cite only steps above it. The "
        "`help:` line names the closest valid reference when there is one.",
        "Fix the spelling, or cite an assumption label, an earlier step, `def NAME` for a definition, or a "
        "rule (`linearity`, `def Var`, `def Cov`, `factorization`, `sums`, ...; see docs/kernel.md).",
        example="random X\nassume mean0: E[X] = 0\nstep s: E[X] = 0 by mean\n",
    ),
    Code(
        "E-circular", "error", "steps", "a step cites itself",
        "The `by` list of a step names the step itself. A step cannot be used to prove itself.",
        "Remove its own name from `by`; cite the assumptions or earlier steps it follows from.",
        example="let x: real\nstep s: x = x by s\n",
    ),
    Code(
        "E-relation", "error", "steps", "not a chain relation",
        "A link of a `step` chain uses a relation that cannot be chained: `≈` (approximately) or `!=`. A chain "
        "is made of `=`, `<`, `<=`, `>` and `>=`. The link is not checked.",
        "Use `check NAME: A ≈ B` for numeric approximations, and `=` or an inequality in a step.",
        example="let x: real\nstep s: x ≈ x\n",
    ),
    Code(
        "E-mixed-chain", "error", "steps", "a chain goes both ways",
        "A `step` chain mixes `<=` or `<` with `>=` or `>` (`x^2 + 1 >= 2 x <= 2 x + 1`): it states no "
        "relation between its first and last expressions. Every link is still checked and shown, but the "
        "step is not verified.",
        "Split the chain into two steps, one per direction.",
        example="let x: real\nstep s: x^2 + 1 >= 2 x <= 2 x + 1\n",
    ),
    Code(
        "E-internal-soundness", "error", "steps", "internal soundness error",
        "The kernel accepted a link, but the soundness cross-check found a finite model of the link's "
        "assumptions in which the link is false: the kernel was wrong. This is a bug in stepcheck, not in "
        "your file. The link is not counted as verified, and the notes show the model.",
        "Please report it with the file. The link's status is safe meanwhile: it is not counted as verified.",
        trigger="none known: it would be a bug in the kernel",
    ),
    Code(
        "W-cross-check", "warning", "steps", "the soundness cross-check could not run",
        "After the kernel proves a link, stepcheck evaluates it on random finite models of its assumptions as "
        "a guard against kernel bugs. That check failed with an internal error for this link, so the link "
        "rests on the kernel's proof alone. The verdict is unchanged.",
        "Nothing to fix in the file. Please report it with the file, since it points at a bug in the model "
        "evaluator.",
        trigger="none known: it would be a bug in the model evaluator",
    ),
    # ----------------------------------------------------------------- refute
    Code(
        "E-refute-proved", "error", "refute", "this refutation fails: the statement is proved",
        "A `refute` claims that its statement does not follow from the assumptions listed after `under` (or, "
        "without `under`, from all the assumptions so far). The kernel proves the statement from them, so it "
        "cannot be refuted; the note names what it was proved from.",
        "If you meant to show that an assumption is needed, leave that assumption out of `under`. Otherwise "
        "the statement does follow: make it a `step`.",
        example="random X, Y\nassume uncorr: Cov(X, Y) = 0\n"
                "refute wrong: Var(X + Y) = Var(X) + Var(Y)    under uncorr\n",
    ),
    Code(
        "E-refute-unknown", "error", "refute", "could not refute this statement",
        "No finite counterexample was found within the search limits, and the statement was not proved "
        "either. Not refuted is not the same as true; the `refute` is `unknown`. A note gives the limits the "
        "search used.",
        "Check that the statement is really false under the assumptions listed. A counterexample is searched "
        "among small finite models: a statement false only for large dimensions or for continuous laws may "
        "not be found; restate it in a smaller case.",
        example="refute r: sqrt(2) + sqrt(3) = sqrt(5 + 2 sqrt(6))\n",
    ),
    Code(
        "W-relation", "warning", "refute", "relation not supported yet in refute",
        "This version refutes only equations (`=`); a `refute` with `<`, `<=`, `>` or `>=` is not checked "
        "and is `unknown`.",
        "Refute an equation instead, or write the inequality as a `step` to show it holds.",
        example="random X, Y\nrefute r: Var(X) <= Var(Y)\n",
    ),
    # ---------------------------------------------------------------- numbers
    Code(
        "E-numeric-fails", "error", "numbers", "a numeric claim does not hold",
        "A `check` or `table` cell is false: the exact value of the left side is outside the interval the "
        "right side allows. For `≈` with a decimal, that is the precision as written (`2.83` means ±0.005); "
        "with `within TOL` it is ±TOL. The notes give the exact value and the interval.",
        "Correct the number, print it with fewer digits, or give the tolerance you mean with `within`.",
        example="check sigma_8: sqrt(8) ≈ 2.9\n",
    ),
    Code(
        "E-numeric-unknown", "error", "numbers", "could not decide this numeric claim",
        "The value of a numeric claim could not be computed exactly, or its comparison decided: a random "
        "variable has no declared distribution, several variables are not covered by one independence "
        "assumption, an event involves several continuous variables, or the sign of the difference needs more "
        "than 100 digits. The note says which.",
        "Declare the distributions (`random X ~ Normal(0, 1)`), assume the independence the claim needs "
        "(`assume indep: independent(X, Y)`), or simplify the claim.",
        example="random X, Y\ncheck c: E[X Y] = 0\n",
    ),
    Code(
        "E-tolerance", "error", "numbers", "a tolerance is wrong",
        "The `within TOL` of a numeric claim is not a positive number, or it is attached to a relation other "
        "than `≈` (an exact claim `=`, `<`, ... has no tolerance).",
        "Give a positive number (`within 1e-4`, `within 0.02 relative`), and use `within` only with `≈`.",
        example="check c: 1/3 ≈ 0.33 within -1\n",
    ),
    Code(
        "E-table", "error", "numbers", "a table row has the wrong number of cells",
        "Each row of a `table ... for VAR in [v1, v2, ...]` has one cell per value of the variable; this row "
        "has more or fewer. A note lists the values.",
        "Give the row one cell per value, in the same order.",
        example='table "t" for x in [1, 2]:\n    x ≈ [1, 2, 3]\n',
    ),
    Code(
        "E-simulate", "error", "numbers", "a simulate statement is written wrongly",
        "A `simulate` estimates a value, so its relation is `≈` (`simulate NAME: E[...] ≈ VALUE`); its "
        "options are `samples = N` (a whole number, at least 1; a verdict needs 100, see "
        "`E-simulation-too-few`), `seed = S` (a whole number, 0 <= S < 2^128) and `confidence = C` (more "
        "than 0 and at most 0.999999); `where` gives each name a number. One of these is violated, or an "
        "option name is unknown.",
        "Write `simulate NAME: QUANTITY ≈ VALUE [where x = v] [with samples = N, seed = S, confidence = C]`.",
        example="random Z ~ Normal(0, 1)\nsimulate s: E[Z] ≈ 0 with sample = 100\n",
    ),
    Code(
        "E-simulation-inconsistent", "error", "numbers", "the simulation is inconsistent with this claim",
        "The claimed value lies outside the confidence interval of the simulated estimate. A simulation is "
        "evidence, not a proof, but at this sample size the claim is unlikely to be true; the exit code is 1. "
        "The note gives the estimate and the interval.",
        "Check the claim (prove it with a `step` if you can); if it is right, check the sample size, the seed "
        "and the confidence level.",
        example="random Z ~ Normal(0, 1)\nsimulate s: E[Z] ≈ 1 with samples = 2000, seed = 1\n",
    ),
    Code(
        "E-simulation-unknown", "error", "numbers", "could not simulate this claim",
        "The claim cannot be sampled, or its sample would mean nothing: a random variable in it has no "
        "declared distribution; the simulation would draw too many random numbers or run past the time "
        "limit; a law's parameters are beyond what float64 samples hold exactly (`DiscreteUniform(1, 10^30)`, "
        "`Binomial(10^25, 1/2)`); the estimate overflows; or the quantity is not certified to have finite "
        "moments (`E[1/Z]`, `E[exp(Z^2)]`: a heavy-tailed or undefined quantity, whose confidence interval "
        "would be meaningless). The note says which. The statement is `unknown`.",
        "Declare the distributions of the variables (`random X ~ Normal(0, 1)`), lower `samples`, simulate a "
        "bounded or polynomial quantity, or compute the value exactly with `check` (or prove it with a `step`).",
        example="random X\nsimulate s: E[X] ≈ 0\n",
    ),
    Code(
        "E-simulation-too-few", "error", "numbers", "too few samples for a verdict",
        "A `simulate` with fewer than 100 samples, or with too few for its confidence level, gives no verdict: "
        "its interval is a large-sample (normal) approximation, and with few samples it misses the true value "
        "far more often than its confidence says (with 2 samples a nominal 95% interval reaches about 70% for "
        "normally distributed values). A verdict needs at least 100 samples, and enough that the interval's "
        "real miss rate (Student's t with n − 1 degrees of freedom) is at most twice 1 − confidence. The "
        "statement is `unknown`; the note gives the confidence actually reached.",
        "Use more samples (the default is 20,000), or a lower `confidence`.",
        example="random Z ~ Normal(0, 1)\nsimulate s: E[Z] ≈ 100 with samples = 2\n",
    ),
    Code(
        "W-simulate-proof", "warning", "numbers", "the cited step does not state the simulated claim",
        "A `simulate ... by STEP` names the step that proves its claim symbolically, but that step proves a "
        "different statement (even after the `where` values are put in). The simulation itself is still "
        "checked.",
        "Cite the step that proves the simulated quantity, or simulate the quantity that step proves.",
        example="random Z ~ Normal(0, 1)\nstep s: E[Z] = 0\n"
                "simulate sim: E[Z^2] ≈ 1 with samples = 2000, seed = 1 by s\n",
    ),
    # -------------------------------------------------------------------- api
    Code(
        "E-claim-empty", "error", "api", "the claim is empty",
        "`stepcheck.check(claim, given=...)` was called with a claim that is empty or only whitespace.",
        'Pass a relation: `check("E[X + 1] = E[X] + 1", given="random X")`.',
        trigger='`stepcheck.check("")` in Python',
    ),
    Code(
        "E-claim", "error", "api", "the claim was not checked",
        "`stepcheck.check(...)` found no result for its claim after checking it. This should not happen (the "
        "parser always yields the claim or an error) and points at a bug in stepcheck.",
        "Please report it with the claim and `given`.",
        trigger="none known: it would be a bug in the Python API",
    ),
)

CODES: dict[str, Code] = {c.code: c for c in _TABLE}
assert len(CODES) == len(_TABLE), "a code is listed twice"

SEVERITIES = {"E": "error", "W": "warning", "N": "note"}
DOC_PATH = "docs/diagnostics.md"


def anchor(code: str) -> str:
    """The anchor of ``code``'s section in docs/diagnostics.md."""
    return code.lower()


def lookup(name: str) -> Code | None:
    """The entry for ``name``, also when written in another case or without its ``E-``/``W-``/``N-`` prefix."""
    if name in CODES:
        return CODES[name]
    low = {c.lower(): c for c in CODES}
    if name.lower() in low:
        return CODES[low[name.lower()]]
    bare = [c for c in CODES if c.split("-", 1)[1].lower() == name.lower()]
    return CODES[bare[0]] if len(bare) == 1 else None


def _fill(text: str, width: int, indent: str = "") -> str:
    import textwrap

    return "\n\n".join(
        textwrap.fill(p, width, initial_indent=indent, subsequent_indent=indent,
                      break_on_hyphens=False, break_long_words=False)
        for p in text.split("\n\n"))


def explain(code: str, width: int = 79) -> str:
    """The text of ``verify --explain CODE`` (plain text, rustc style)."""
    c = CODES[code]
    out = [f"{c.code} ({c.severity}): {c.title}", "", _fill(c.explanation, width)]
    if c.example is not None:
        out += ["", "Example" + (" (with --strict):" if c.strict else ":"), ""]
        out += ["    " + line if line else "" for line in c.example.rstrip("\n").split("\n")]
    elif c.trigger is not None:
        out += ["", "Produced by: " + c.trigger]
    out += ["", _fill("How to fix it: " + c.fix, width)]
    if c.reserved:
        out += ["", _fill("Reserved: " + c.reserved, width)]
    out += ["", f"Documented in {DOC_PATH}#{anchor(c.code)}.", "`verify --explain list` lists every code."]
    return "\n".join(out) + "\n"


def listing() -> str:
    """The text of ``verify --explain list``: every code with its severity and title, by group."""
    w = max(len(c) for c in CODES)
    out = []
    for key, heading, _ in GROUPS:
        out.append(f"{heading}:")
        out += [f"  {c.code:<{w}}  {c.severity:<7}  {c.title}" for c in _TABLE if c.group == key]
        out.append("")
    out.append("verify --explain CODE explains one of them.")
    return "\n".join(out) + "\n"


def markdown() -> str:
    """docs/diagnostics.md, generated from the table."""
    out = [
        "# Diagnostic codes",
        "",
        "<!-- Generated from src/stepcheck/codes.py by `python scripts/gen_diagnostics.py`: do not edit by hand."
        " tests/test_codes.py fails when this file is out of date. -->",
        "",
        "Every error, warning and note stepcheck reports has a stable code, such as `E-fails` or `W-unneeded`: "
        "it is shown in the JSON report (`code`, see [json.md](json.md)), in pytest failures and in the "
        "Python API, and it does not change between versions when the wording of a message does. "
        "`verify --explain CODE` prints the explanation of one code in the terminal; `verify --explain` lists "
        "them all.",
        "",
        "Codes starting with `E-` are errors, `W-` warnings and `N-` notes. How each kind of problem affects "
        "the exit code is described in [language.md](language.md#errors-and-exit-codes). Every `.step` "
        "example on this page is checked by the test suite (`tests/test_codes.py`) and produces its code.",
        "",
        "| code | severity | title |",
        "|---|---|---|",
    ]
    for key, _, _ in GROUPS:
        out += [f"| [`{c.code}`](#{anchor(c.code)}) | {c.severity} | {c.title} |" for c in _TABLE if c.group == key]
    for key, heading, intro in GROUPS:
        out += ["", f"## {heading}", "", intro]
        for c in (c for c in _TABLE if c.group == key):
            out += ["", f'<a id="{anchor(c.code)}"></a>', "", f"### `{c.code}`: {c.title}", "",
                    f"*{c.severity}*", "", c.explanation]
            if c.example is not None:
                out += ["", "Example" + (" (with `--strict`):" if c.strict else ":"), "", "```step",
                        c.example.rstrip("\n"), "```"]
            elif c.trigger is not None:
                out += ["", f"Produced by: {c.trigger}."]
            out += ["", f"**How to fix it.** {c.fix}"]
            if c.reserved:
                out += ["", f"**Reserved.** {c.reserved}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # python -m stepcheck.codes: print docs/diagnostics.md
    import sys

    sys.stdout.write(markdown())
