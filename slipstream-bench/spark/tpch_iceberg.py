# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""The Iceberg side of the TPC-H benchmark (run_tpch.py --iceberg): which FileIO each reader is, the jars
it needs, and the catalog every job shares. run_tpch.py calls jars() and the readers' names; tpch_job.py
(in a pyspark installation's Python) calls catalog() to configure its session.

One catalog for every job: Iceberg's JDBC catalog on an SQLite file of the run (no server), named 'lake',
its warehouse on the S3 server (s3a://spark-sql/iceberg-sf<N>). The write job creates the tables through
HadoopFileIO over S3A classic on the unshaped endpoint (as run_tpch uploads the Parquet tables); each
query job opens the same catalog file with its reader's io-impl and the shaped endpoint, so all readers
read the same metadata and data files.

The readers, each a catalog io-impl:
- slipstream: dev.slipstream.iceberg.SlipstreamFileIO, the jar this checkout builds, beside Iceberg's
  AWS bundle (whose SDK it reads with); its disk cache in the job's own directory.
- s3fileio: org.apache.iceberg.aws.s3.S3FileIO, as Iceberg ships it.
- s3fileio-analytics: S3FileIO with s3.analytics-accelerator.enabled=true. Iceberg 1.10.1's AWS bundle
  holds the accelerator (analyticsaccelerator-s3 1.3.0, the version of Iceberg's build), so no jar is
  added for it; the accelerator reads through S3FileIO's async client, by default the SDK's CRT client
  (s3.crt.enabled=true), whose native library aws-crt is not in the bundle: added, at the version the
  bundle's SDK (2.33.0) is built with. That async client takes only the endpoint from the catalog
  properties (Iceberg 1.10.1 sets neither its credentials nor path style from s3.*): its keys come from
  the SDK's default chain, the job's environment; its requests go path-style because the endpoint is
  an IP address.
- hadoop-s3a: org.apache.iceberg.hadoop.HadoopFileIO over S3A classic (the Hadoop of the pyspark
  installation, fs.s3a.input.stream.type=classic), the jars of run_tpch's S3A readers.
"""
import glob
import os
import pathlib

ICEBERG = "1.10.1"
SPARK_LINE = "4.0"  # iceberg-spark-runtime-4.0_2.13: Iceberg 1.10.1's newest Spark
AWS_CRT = "0.38.9"  # the aws-crt of the AWS SDK 2.33.0 that iceberg-aws-bundle 1.10.1 holds
SQLITE_JDBC = "3.51.1.0"  # as slipstream-iceberg's tests
CATALOG = "lake"
NAMESPACE = "tpch"
READERS = ["slipstream", "s3fileio", "s3fileio-analytics", "hadoop-s3a"]
IO_IMPL = {
    "slipstream": "dev.slipstream.iceberg.SlipstreamFileIO",
    "s3fileio": "org.apache.iceberg.aws.s3.S3FileIO",
    "s3fileio-analytics": "org.apache.iceberg.aws.s3.S3FileIO",
    "hadoop-s3a": "org.apache.iceberg.hadoop.HadoopFileIO",
}
ARTIFACTS = {  # what each reader adds to iceberg-spark-runtime and sqlite-jdbc (besides S3A's or Slipstream's)
    "runtime": "org.apache.iceberg:iceberg-spark-runtime-%s_2.13:%s" % (SPARK_LINE, ICEBERG),
    "sqlite": "org.xerial:sqlite-jdbc:" + SQLITE_JDBC,
    "bundle": "org.apache.iceberg:iceberg-aws-bundle:" + ICEBERG,
    "crt": "software.amazon.awssdk.crt:aws-crt:" + AWS_CRT,
}


def check_spark(versions):
    wrong = [v for v in versions if not v.startswith(SPARK_LINE + ".")]
    if wrong:
        raise SystemExit("--iceberg runs Iceberg %s's runtime for Spark %s, not Spark %s"
                         % (ICEBERG, SPARK_LINE, ", ".join(wrong)))


def jars(common, s3a_jars, slipstream_jar):
    """Per reader (and 'write'), the jars of its job: resolved from Maven Central by Maven, once."""
    out = common.WORK / ("iceberg-" + ICEBERG)
    got = {}
    for name, coords in ARTIFACTS.items():
        g, a, v = coords.split(":")
        jar = out / ("%s-%s.jar" % (a, v))
        if not jar.exists():
            common.mvn("-N", "dependency:copy", "-Dartifact=" + coords, "-DoutputDirectory=" + str(out))
        got[name] = str(jar)
    base = [got["runtime"], got["sqlite"]]
    return {
        "write": base + s3a_jars,
        "slipstream": base + [got["bundle"], slipstream_jar],
        "s3fileio": base + [got["bundle"]],
        "s3fileio-analytics": base + [got["bundle"], got["crt"]],
        "hadoop-s3a": base + s3a_jars,
    }


def slipstream_jar(common, jar):
    """The SlipstreamFileIO jar to test: the one given, or this checkout's slipstream-iceberg, built."""
    if jar:
        return jar
    common.mvn("-pl", "slipstream-iceberg", "-am", "package", "-DskipTests")
    return [j for j in glob.glob(str(common.ROOT / "slipstream-iceberg" / "target" / "slipstream-iceberg-*.jar"))
            if not j.endswith(("-sources.jar", "-tests.jar")) and "original" not in j][0]


def catalog(b, args, reader, endpoint):
    """Adds the catalog 'lake' with the reader's FileIO to a session builder. S3A's settings (the builder's)
    serve HadoopFileIO; the s3.* properties serve S3FileIO and SlipstreamFileIO."""
    p = "spark.sql.catalog." + CATALOG
    b = (b.config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config(p, "org.apache.iceberg.spark.SparkCatalog")
         .config(p + ".type", "jdbc")
         .config(p + ".uri", "jdbc:sqlite:" + args.catalog)
         .config(p + ".jdbc.schema-version", "V1")
         .config(p + ".warehouse", args.base)
         .config(p + ".io-impl", IO_IMPL[reader])
         .config(p + ".s3.endpoint", endpoint)
         .config(p + ".s3.path-style-access", "true")
         .config(p + ".s3.access-key-id", args.access_key)
         .config(p + ".s3.secret-access-key", args.secret_key)
         .config(p + ".client.region", "us-east-1"))
    if reader == "slipstream":
        import tempfile
        b = b.config(p + ".slipstream.cache.disk.dir", tempfile.mkdtemp(prefix="tpch-iceberg-cache-"))
    elif reader == "s3fileio-analytics":
        b = b.config(p + ".s3.analytics-accelerator.enabled", "true")
        # the accelerator's async client reads its keys from the SDK's default chain (see above); the JVM
        # pyspark starts inherits this environment. The embedded server's fixed test keys.
        os.environ.update(AWS_ACCESS_KEY_ID=args.access_key, AWS_SECRET_ACCESS_KEY=args.secret_key,
                          AWS_REGION="us-east-1")
    return b


def write(spark, args, tables):
    """Creates the tables in the catalog from the local Parquet files (DuckDB's) and describes them:
    data files, their bytes, rows and row groups (Iceberg's split offsets), from the 'files' metadata table."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS %s.%s" % (CATALOG, NAMESPACE))
    out = {}
    for t in tables:
        name = "%s.%s.%s" % (CATALOG, NAMESPACE, t)
        spark.read.parquet("file://" + os.path.join(args.local, t)).writeTo(name).using("iceberg").createOrReplace()
        files, size, rows, groups = spark.sql(
            "SELECT count(*), sum(file_size_in_bytes), sum(record_count), sum(size(split_offsets)) FROM %s.files"
            % name).collect()[0]
        out[t] = {"files": files, "bytes": size, "rows": rows, "row_groups": groups}
    return out


def use(spark):
    spark.sql("USE %s.%s" % (CATALOG, NAMESPACE))


def catalog_file(common, sf_name):
    return common.WORK / ("iceberg-sf%s.db" % sf_name)


def remove(path):
    pathlib.Path(path).unlink(missing_ok=True)
