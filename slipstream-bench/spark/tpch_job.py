# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""One Spark job of the TPC-H benchmark, run by a pyspark installation's own Python.

mode 'upload' copies the local tables (run_tpch.py's cache, tpch-sf<N>/<table>/*.parquet) with S3A
classic straight to the server (no shaping), skipping the tables already there with all their files;
mode 'query' runs cold in a new local[2] session with one reader (the session of spark_sql_job.py, its
heap set by --driver-memory): the step 'load' registers the 8 tables as temporary views (listing, one
footer a table for the schema; with --iceberg: loads the 8 tables of the Iceberg catalog, reading their
metadata, see tpch_iceberg.py), then q1 to q22 as DuckDB's tpch_queries() prints them, each collected,
reading the shaped link's counters before and after each step. Prints one JSON line: per step seconds,
link bytes, GETs, HEADs, the answer's row count and digest, or the error;
With --cluster (run_tpch.py --cluster, see spark_cluster.py) the session runs on local-cluster, two
executor JVMs of one core each, and the steps are 'load', then 'scan' (every column of every row of
lineitem), then the queries; Slipstream's session also runs the plugin with Spark's CSV sink, and the JSON
line adds each executor's last gauges and what each executor's class path held. --queries runs a subset;
mode 'iceberg-write' creates the 8 tables in the Iceberg catalog from the local tables, through
HadoopFileIO over S3A classic straight to the server, and prints their data files, bytes and row groups.

The digest hashes the answer's rows sorted (ties of an ORDER BY may come in any order), doubles rounded
to 6 significant digits and decimals to 2 places (Spark's decimal arithmetic is exact, but a double's
sum depends on the order of its terms), dates as ISO text.
"""
import argparse
import datetime
import decimal
import hashlib
import json
import os
import re
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from spark_sql_job import LOCAL_DISK, Cost, builder, gc_option, link_counters, slipstream_counters  # noqa: E402
import spark_cluster  # noqa: E402
import tpch_iceberg  # noqa: E402

TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
# Mechanical rewrites of DuckDB's SQL for Spark SQL, (pattern, replacement, why), applied in order.
# None are needed: Spark 4.0.1 and 4.3.0 parse and run all 22 queries as DuckDB 1.5.5 prints them
# (CAST(... AS date), extract(year FROM ...), substring(... FROM 1 FOR 2), a derived table's column
# list 'AS c_orders (c_custkey, c_count)', the trailing ';').
ADAPTATIONS = []
CENTS = decimal.Decimal("0.01")
WIDE = decimal.Context(prec=80)


def adapt(sql):
    for pattern, replacement, _ in ADAPTATIONS:
        sql = re.sub(pattern, replacement, sql)
    return sql


def norm(v):
    if isinstance(v, float):
        return "%.6g" % v
    if isinstance(v, decimal.Decimal):
        return str(v.quantize(CENTS, rounding=decimal.ROUND_HALF_EVEN, context=WIDE))
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return repr(v)


def digest(rows):
    lines = sorted(repr(tuple(norm(v) for v in r)) for r in rows)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def upload(args):
    # Each file through S3A's output stream (FileSystem's own copyFromLocalFile), not S3A's optimized copy:
    # that one uploads through the SDK's transfer manager, which with SDK 2.24 (Hadoop 3.4.1's line) asks
    # for a CRC32 trailer, sent as aws-chunked with STREAMING-UNSIGNED-PAYLOAD-TRAILER, which s3proxy 2.6.0
    # does not decode (it answers XAmzContentSHA256Mismatch). The output stream's PUT over plain http is
    # signed in chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD), which it does.
    spark = (builder(args, "classic", args.endpoint)
             .config("spark.hadoop.fs.s3a.optimized.copy.from.local.enabled", "false").getOrCreate())
    jvm = spark._jvm
    Path = jvm.org.apache.hadoop.fs.Path
    fs = Path(args.base).getFileSystem(spark._jsc.hadoopConfiguration())
    copied = []
    for t in TABLES:
        src = os.path.join(args.local, t)
        names = sorted(n for n in os.listdir(src) if n.endswith(".parquet"))
        dst = Path(args.base + "/" + t)
        if fs.exists(dst) and sorted(s.getPath().getName() for s in fs.listStatus(dst)) == names:
            continue
        fs.delete(dst, True)
        for n in names:
            fs.copyFromLocalFile(False, True, Path("file://" + os.path.join(src, n)), Path(args.base + "/" + t + "/" + n))
        copied.append(t)
    spark.stop()
    print("RESULT " + json.dumps({"copied": copied}), flush=True)


def iceberg_write(args):
    b = tpch_iceberg.catalog(builder(args, "classic", args.endpoint), args, "hadoop-s3a", args.endpoint)
    # Spark's read splits of the local files are the written files: up to 64 MB of DuckDB's files of ~32 MB
    spark = (b.config("spark.sql.files.maxPartitionBytes", str(64 << 20))
             .config("spark.driver.memory", args.driver_memory).getOrCreate())
    tables = tpch_iceberg.write(spark, args, TABLES)
    spark.stop()
    print("RESULT " + json.dumps({"tables": tables}), flush=True)


def query(args):
    started = time.time()  # the job's start, before its session launches the JVM
    gc_dir = tempfile.mkdtemp(prefix="spark-gc-")  # each JVM's GC log, in the job's own temporary directory
    with open(os.path.join(args.local, "manifest.json")) as f:
        queries = json.load(f)["queries"]
    if args.queries:
        queries = [q for q in queries if q["name"] in args.queries.split(",")]
    home = spark_cluster.prepare(args) if args.cluster else None
    if args.iceberg:  # the reader is the catalog's FileIO; S3A classic's settings serve HadoopFileIO
        b = tpch_iceberg.catalog(builder(args, "classic", args.endpoint), args, args.reader, args.endpoint)
    else:
        b = builder(args, args.reader, args.endpoint)
    if args.cluster:
        b = spark_cluster.configure(b, args, gc_dir)
    spark = (b.appName("tpch-" + args.reader)
             .config("spark.driver.memory", args.driver_memory)
             .config("spark.driver.extraJavaOptions", gc_option(gc_dir, "driver")).getOrCreate())
    cost = Cost(spark, started, gc_dir)
    if args.cluster:
        spark_cluster.await_executors(spark)
    steps, last = run_steps(spark, queries, args, cost)
    # the job: from the moment it asked for its session (the JVM's launch, and the executors') to its last step
    job = cost.between(cost.start(), last)
    job["job_s"] = job.pop("s")
    result = {"reader": args.reader, "spark": spark.version, "steps": steps, "job": dict(job, **cost.shape())}
    if args.reader.startswith("slipstream") and not args.cluster:  # --cluster: the executors' gauges
        result["slipstream_counters"] = slipstream_counters(spark)
    if args.cluster and args.reader == "slipstream":
        result["gauges"], result["settled"] = spark_cluster.settle(args.metrics_dir, int(time.time()))
    spark.stop()
    if args.cluster:
        result["classpath"] = spark_cluster.classpath(home)
    print("RESULT " + json.dumps(result), flush=True)


def run_steps(spark, queries, args, cost):
    """Runs the steps; returns their results and the cost's sample at the end of the last."""
    steps = []
    last = [None]

    def step(name, run):
        before = link_counters(args.stats)
        t0 = time.monotonic()
        c0 = cost.sample()
        out = {"step": name}
        try:
            rows = run()
            out.update(rows=len(rows), answer=digest(rows))
        except Exception as e:  # a failed query is reported, and the job goes on with the next one
            cause = str(getattr(e, "java_exception", None) or e).strip().splitlines()  # a Py4JJavaError's cause
            out.update(rows=0, answer="error", error=(cause or ["?"])[0][:500])
        out["seconds"] = round(time.monotonic() - t0, 3)
        last[0] = cost.sample()
        out.update((k, v) for k, v in cost.between(c0, last[0]).items() if k != "s")
        time.sleep(0.2)  # the counters file is rewritten every 50 ms
        after = link_counters(args.stats)
        for k in ("bytes", "gets", "heads"):
            out[k] = after[k] - before[k]
        steps.append(out)
        print("%s %s: %.2f s, %.1f MB, %d GETs, %d HEADs, %.1f CPU s%s" % (
            args.reader, name, out["seconds"], out["bytes"] / 1e6, out["gets"], out["heads"], out["cpu_s"],
            ", " + out["error"] if "error" in out else ""), file=sys.stderr, flush=True)

    def load():
        if args.iceberg:
            tpch_iceberg.use(spark)  # the queries' table names are the catalog's tables
            for t in TABLES:
                spark.table(t).schema  # loads the table: its metadata file
            return []
        base = "file://" + args.local if args.reader == LOCAL_DISK else args.base
        for t in TABLES:
            spark.read.parquet(base + "/" + t).createOrReplaceTempView(t)
        return []

    step("load", load)
    if args.cluster:
        step("scan", lambda: spark.sql(spark_cluster.SCAN).collect())
    for q in queries:
        step(q["name"], lambda: spark.sql(adapt(q["sql"])).collect())
    return steps, last[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["upload", "query", "iceberg-write"], required=True)
    p.add_argument("--reader", choices=sorted({"classic", "analytics", "slipstream", LOCAL_DISK} | set(tpch_iceberg.READERS)),
                   default="classic")
    p.add_argument("--iceberg", action="store_true", help="'query': the tables of the Iceberg catalog")
    p.add_argument("--catalog", help="the Iceberg catalog's SQLite file")
    p.add_argument("--endpoint", required=True, help="the shaped endpoint ('query') or the direct one ('upload')")
    p.add_argument("--stats")
    p.add_argument("--access-key", required=True)
    p.add_argument("--secret-key", required=True)
    p.add_argument("--jars", required=True)
    p.add_argument("--local", required=True, help="the local data directory (tpch-sf<N>)")
    p.add_argument("--base", required=True, help="where the tables are on the server (s3a://bucket/tpch-sf<N>), "
                   "or the Iceberg catalog's warehouse")
    p.add_argument("--driver-memory", default="2g",
                   help="'query': the heap of the local[2] JVM (--cluster: the driver's)")
    p.add_argument("--queries", help="'query': these queries only (q1,q6,...)")
    p.add_argument("--cluster", action="store_true", help="'query': on local-cluster, with the 'scan' step")
    p.add_argument("--executor-mb", type=int, default=spark_cluster.EXECUTOR_MB, help="--cluster: each executor's heap")
    p.add_argument("--metrics-dir", help="--cluster: the CSV sink's directory (Slipstream)")
    p.add_argument("--properties-file", help="--cluster: Spark properties for spark-submit (the shared tier's)")
    args = p.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if args.mode == "query":
        query(args)
    elif args.mode == "iceberg-write":
        iceberg_write(args)
    else:
        upload(args)


if __name__ == "__main__":
    main()
