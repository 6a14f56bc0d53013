"""axe-core in the page under test: every rule axe runs by default (WCAG A and AA and the best
practices), violations of any impact reported with their nodes. axe-core is vendored under
vendor/axe-core/ (MPL-2.0; see its README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"


def axe_violations(page: Page, context: str | None = None) -> list[dict[str, Any]]:
    """Run axe over the page (or the element ``context`` selects); its violations."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        """async (context) => {
          const r = await axe.run(context ? document.querySelector(context) : document,
            { resultTypes: ["violations"] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target,
              summary: n.failureSummary })) }));
        }""",
        context,
    )
    assert isinstance(result, list)
    return result


def assert_no_violations(page: Page, where: str) -> None:
    """Fail with axe's words when the page has any violation, of any impact."""
    found = axe_violations(page)
    assert not found, f"axe on {where}:\n" + json.dumps(found, indent=1, ensure_ascii=False)
