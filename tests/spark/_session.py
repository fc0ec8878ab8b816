"""A quiet local Spark session on the loopback only, for the Spark tests and benchmark."""

import os
import warnings

#: the settings of every local session here: no web UI, no progress bars, the loopback only
QUIET_LOOPBACK = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}


def local_session(app_name, config):
    """A ``local[2]`` session called ``app_name`` with the settings of ``QUIET_LOOPBACK`` and
    ``config`` (name -> value), logging errors only."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # the loopback only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder = SparkSession.builder.master("local[2]").appName(app_name)
        for key, value in {**QUIET_LOOPBACK, **config}.items():
            builder = builder.config(key, value)
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
