"""What runs where, on Spark: every declared row of ``venncal._support.SUPPORT`` through
``venncal.spark.fit`` (the other surfaces are walked in ``tests/test_support.py``)."""

import pytest

from tests import _support_walk as walk
from venncal._support import SUPPORT

# PySpark warns about the installed pandas and numpy versions (as in the other Spark tests)
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


@pytest.mark.parametrize(("name", "task"), sorted(SUPPORT))
def test_spark(spark, name, task):
    import venncal.spark

    entry = SUPPORT[(name, task)]["spark"]
    walk.check_engine(venncal.spark, name, task, entry, spark.createDataFrame)
