"""CI-Bench tasks (CP, BA, FI, CI) and intervention effects (IE).

The questions are formal objects (``model``); one module per task derives the
answer with its certificate:

=========  ====================  ==============================================
task       module                answer
=========  ====================  ==============================================
CP         ``paths``             every directed path from each cause to each effect
BA         ``backdoor``          whether adjustment is needed; all minimal valid
                                 sets; a verdict (with reason) on any proposed set
FI, CI     ``boolean_scm``       the value of each query, with the evaluation trace
IE         ``intervention``      yes/no after the interventions, and κ = C(G) − C(G^V)
=========  ====================  ==============================================

``grading`` grades a parsed model answer; ``explain`` says why in words.  The
certificates are re-checked by ``oracle.tasks.check``, which shares no code
with this package.  Nothing here imports lark or the parsers.
"""
