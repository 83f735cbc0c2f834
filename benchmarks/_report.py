"""The summary table every benchmark ends with."""


def print_targets(title, rows):
    """Print ``rows`` of ``(quantity, measured, target)`` as a Markdown table.

    ``target`` is ``">= x"``, ``"<= x"`` or ``"info"`` (context, not a target);
    the last column says whether the measured value meets it.
    """
    print(f"\n== {title}")
    width = max(len(row[0]) for row in rows)
    print(f"| {'quantity':<{width}} | measured | target | met? |")
    print(f"|{'-' * (width + 2)}|----------|--------|------|")
    for label, measured, target in rows:
        if target == "info":
            met = "-"
        else:
            bound = float(target.split()[1])
            met = measured >= bound if target.startswith(">=") else measured <= bound
            met = "yes" if met else "NO"
        print(f"| {label:<{width}} | {measured:8.3f} | {target:<6} | {met:<4} |")
