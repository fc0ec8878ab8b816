"""One local Spark session for the Spark tests (skipped without PySpark or Java)."""

import shutil

import pytest

from tests.spark._session import local_session


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime (java is not on PATH)")
    session = local_session(
        "venncal-tests",
        {
            "spark.sql.shuffle.partitions": "3",
            "spark.default.parallelism": "2",
            "spark.driver.memory": "1g",
            "spark.sql.execution.arrow.maxRecordsPerBatch": "64",
        },
    )
    yield session
    session.stop()
