"""The smooth ECE of Blasiok & Nakkiran (2024) evaluated straight from its definition.

Every kernel value ``K(t, f_i)`` of the reflected Gaussian is computed at every point of a fine
grid of ``t`` (O(n * grid) work, no binning, no Fourier transform), the integral is the
trapezoid rule on that grid, and the fixed-point bandwidth is found by plain bisection.
"""

import numpy as np


def reflected_kernel(t, f, sigma):
    """``K(t, f) = sum_k phi(t - f + 2k) + phi(t + f + 2k)``, shape (len(t), len(f)).

    The images ``f + 2k`` and ``-f + 2k`` are summed over every ``k`` within 10 sigma of [0, 1].
    """
    t = np.asarray(t, dtype=float)[:, None]
    f = np.asarray(f, dtype=float)[None, :]
    reach = int(np.ceil((10.0 * sigma + 1.0) / 2.0)) + 1
    total = np.zeros((t.shape[0], f.shape[1]))
    for k in range(-reach, reach + 1):
        for image in (f + 2 * k, -f + 2 * k):
            total += np.exp(-0.5 * ((t - image) / sigma) ** 2)
    return total / (sigma * np.sqrt(2.0 * np.pi))


def _grid(sigma, n_grid=None):
    if n_grid is None:
        n_grid = max(4001, int(40.0 / sigma) + 1)
    return np.linspace(0.0, 1.0, n_grid)


def smece_sigma(y, p, sigma, w=None, n_grid=None):
    """``(1 / W) int_0^1 |sum_i w_i K(t, p_i) (y_i - p_i)| dt``."""
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=float)
    t = _grid(sigma, n_grid)
    resid = reflected_kernel(t, p, sigma) @ (w * (y - p))
    return np.trapezoid(np.abs(resid), t) / w.sum()


def smece(y, p, w=None, low=1e-3, steps=40):
    """The fixed point ``sigma* = smECE_sigma*`` by bisection on ``[low, 1]`` (``low`` when the
    error at ``low`` is below ``low``); returns ``(smece, sigma)``."""
    if smece_sigma(y, p, low, w) <= low:
        return smece_sigma(y, p, low, w), low
    a, b = low, 1.0
    for _ in range(steps):
        mid = 0.5 * (a + b)
        if smece_sigma(y, p, mid, w) > mid:
            a = mid
        else:
            b = mid
    sigma = 0.5 * (a + b)
    return smece_sigma(y, p, sigma, w), sigma


def kernel_regression(t, y, p, sigma, w=None):
    """Kernel regressions of ``y`` and of ``p`` at ``t`` and the kernel density of ``p``."""
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=float)
    k = reflected_kernel(t, p, sigma)
    mass = k @ w
    return (k @ (w * y)) / mass, (k @ (w * p)) / mass, mass / w.sum()
