"""The parts of :mod:`geomech.report`: the value types (:mod:`~geomech.reporting.model`),
the computation of the sections (:mod:`~geomech.reporting.sections`) and their rendering as
text, Markdown, LaTeX or JSON (:mod:`~geomech.reporting.render`).  The public entry points
are in :mod:`geomech.report` (``gm.report(S)``)."""
