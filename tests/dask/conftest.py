"""A distributed LocalCluster shared by the Dask tests of one module."""

import warnings

import pytest


@pytest.fixture(scope="module")
def client():
    """Two single-threaded workers in this process (no dashboard)."""
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        )
        c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
