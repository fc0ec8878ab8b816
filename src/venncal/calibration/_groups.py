"""Group labels for calibration within groups: see :mod:`venncal.core.groups`."""

from venncal.core.groups import GROUP_FALLBACKS, check_groups, group_rows, unseen_groups

__all__ = ["GROUP_FALLBACKS", "check_groups", "group_rows", "unseen_groups"]
