# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""One Spark SQL job of the spark-sql benchmark, run by a pyspark installation's own Python.

mode 'write' writes the partitioned table with S3A classic straight to the server (no shaping), as Spark
writes it (--layout spark) or as pyarrow does, written locally by pyarrow and copied up through S3A:
--layout pyarrow, Parquet with two row groups a file, every column dictionary-encoded;
--layout pyarrow-orc-one-stripe, ORC (Snappy) in one stripe a file (pyarrow's 64 MiB stripe size);
--layout pyarrow-orc-stripes, ORC (Snappy) in stripes of about 1 MiB (--stripe-bytes), several a file;
mode 'query' runs q1 and q2 cold in a new local[2] session with one reader, over the table as --format
(parquet or orc), reading the shaped link's counters (a file kept by dev.slipstream.testkit.ShapedS3Main)
before and after each query, and prints one JSON line: times, bytes the link delivered, requests, and a
digest of the answers.
"""
import argparse
import hashlib
import json
import os
import tempfile
import time

from pyspark.sql import SparkSession

Q1 = "SELECT dt, count(*), sum(c01 % 1000003) FROM t WHERE c02 < 0 GROUP BY dt ORDER BY dt"
# 2 columns of half the partitions: dt >= '100' of 200
Q2 = "SELECT c06, avg(c05 % 1000003) FROM t WHERE dt >= '{:03d}' GROUP BY c06 ORDER BY c06"
ORC_LAYOUTS = {"pyarrow-orc-one-stripe": 64 << 20, "pyarrow-orc-stripes": None}  # the stripe size; None: --stripe-bytes
SLIPSTREAM_FS = "dev.slipstream.hadoop.SlipstreamS3AFileSystem"


def link_counters(path):
    with open(path) as f:
        sent, requests, gets, heads = (int(x) for x in f.read().split())
    return {"bytes": sent, "requests": requests, "gets": gets, "heads": heads}


def session(args, reader, endpoint):
    return builder(args, reader, endpoint).getOrCreate()


def builder(args, reader, endpoint):
    """The session's builder: local[2], the S3A settings of the server, the reader's file system."""
    b = (SparkSession.builder.master("local[2]").appName("spark-sql-" + reader)
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.driver.memory", "2g")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.jars", args.jars)
         .config("spark.hadoop.fs.s3a.endpoint", endpoint)
         .config("spark.hadoop.fs.s3a.endpoint.region", "us-east-1")
         .config("spark.hadoop.fs.s3a.path.style.access", "true")
         .config("spark.hadoop.fs.s3a.connection.ssl.enabled", "false")
         .config("spark.hadoop.fs.s3a.aws.credentials.provider",
                 "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider")
         .config("spark.hadoop.fs.s3a.access.key", args.access_key)
         .config("spark.hadoop.fs.s3a.secret.key", args.secret_key)
         .config("spark.hadoop.fs.s3a.bucket.probe", "0")
         .config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2")
         .config("spark.hadoop.mapreduce.fileoutputcommitter.cleanup.skipped", "true"))
    if reader == "slipstream":
        b = (b.config("spark.hadoop.fs.s3a.impl", SLIPSTREAM_FS)
             .config("spark.hadoop.fs.slipstream.cache.disk.dir", tempfile.mkdtemp(prefix="spark-sql-cache-")))
    elif reader in ("classic", "analytics"):
        b = b.config("spark.hadoop.fs.s3a.input.stream.type", reader)
    return b


def write(args):
    spark = session(args, "classic", args.direct)
    rows = args.partitions * args.rows
    df = spark.range(0, rows, 1, 8).selectExpr(
        "format_string('%03d', CAST(id % {} AS INT)) AS dt".format(args.partitions),
        "xxhash64(id, 1) AS c01", "xxhash64(id, 2) AS c02", "xxhash64(id, 3) AS c03",
        "xxhash64(id, 4) AS c04", "xxhash64(id, 5) AS c05", "CAST(id % 10 AS BIGINT) AS c06",
        "xxhash64(id, 7) AS c07", "xxhash64(id, 8) AS c08")
    (df.repartition(args.partitions, "dt").write.mode("overwrite")
     .option("parquet.block.size", str(args.row_group_bytes))
     .partitionBy("dt").parquet(args.table))
    spark.stop()


def write_pyarrow(args):
    """The same columns, as pyarrow writes them by default: Parquet with dictionary pages for every column,
    or ORC (Snappy) in stripes of the layout's size."""
    import shutil
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    import pyarrow.orc as po
    local = tempfile.mkdtemp(prefix="spark-sql-pyarrow-")
    try:
        rng = np.random.default_rng(23)
        for p in range(args.partitions):
            cols = {}
            for i in range(1, 9):
                cols["c%02d" % i] = rng.integers(-2**63, 2**63 - 1, size=args.rows, dtype=np.int64)
            cols["c06"] = np.arange(args.rows, dtype=np.int64) % 10
            d = os.path.join(local, "dt=%03d" % p)
            os.makedirs(d)
            if args.layout in ORC_LAYOUTS:
                f = os.path.join(d, "part-0.orc")
                po.write_table(pa.table(cols), f, compression="snappy",
                               stripe_size=ORC_LAYOUTS[args.layout] or args.stripe_bytes)
                if p == 0:
                    print("%s: %d bytes a file, %d stripes" % (args.layout, os.path.getsize(f),
                                                               po.ORCFile(f).nstripes), flush=True)
            else:
                pq.write_table(pa.table(cols), os.path.join(d, "part-0.parquet"),
                               row_group_size=args.rows // 2, compression="snappy")
        spark = session(args, "classic", args.direct)
        jvm = spark._jvm
        dst = jvm.org.apache.hadoop.fs.Path(args.table)
        fs = dst.getFileSystem(spark._jsc.hadoopConfiguration())
        fs.delete(dst, True)
        for p in sorted(os.listdir(local)):
            fs.copyFromLocalFile(False, True, jvm.org.apache.hadoop.fs.Path("file://" + os.path.join(local, p)),
                                 jvm.org.apache.hadoop.fs.Path(args.table + "/" + p))
        spark.stop()
    finally:
        shutil.rmtree(local, ignore_errors=True)


def jvm_cpu_s(spark):
    """The CPU seconds the Spark JVM (driver and, in local mode, executors) has used so far."""
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def query(args):
    spark = session(args, args.reader, args.endpoint)
    out = {"reader": args.reader, "spark": spark.version, "table": args.table.rsplit("/", 1)[-1]}
    digest = hashlib.sha256()
    before = link_counters(args.stats)
    t0 = time.monotonic()
    out["q1_start_ms"] = int(time.time() * 1000)
    cpu0 = jvm_cpu_s(spark)
    (spark.read.orc(args.table) if args.format == "orc" else spark.read.parquet(args.table)).createOrReplaceTempView("t")
    for name, sql in (("q1", Q1), ("q2", Q2.format(args.partitions // 2))):
        if name == "q2":
            before = link_counters(args.stats)
            t0 = time.monotonic()
            out["q2_start_ms"] = int(time.time() * 1000)
            cpu0 = jvm_cpu_s(spark)
        rows = spark.sql(sql).collect()
        seconds = time.monotonic() - t0
        out[name + "_end_ms"] = int(time.time() * 1000)  # to line up with the shaped link's --requests log
        out[name + "_cpu_s"] = round(jvm_cpu_s(spark) - cpu0, 2)  # the JVM's CPU time: a reader's cost on a busy host
        time.sleep(0.2)  # the counters file is rewritten every 50 ms
        after = link_counters(args.stats)
        out[name + "_s"] = round(seconds, 2)
        for k in ("bytes", "gets", "heads"):
            out[name + "_" + k] = after[k] - before[k]
        digest.update(repr([tuple(r) for r in rows]).encode())
    out["answers"] = digest.hexdigest()[:16]
    spark.stop()
    print("RESULT " + json.dumps(out), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["write", "query"], required=True)
    p.add_argument("--reader", choices=["classic", "analytics", "slipstream"], default="classic")
    p.add_argument("--endpoint")
    p.add_argument("--direct")
    p.add_argument("--stats")
    p.add_argument("--access-key", required=True)
    p.add_argument("--secret-key", required=True)
    p.add_argument("--jars", required=True)
    p.add_argument("--table", default="s3a://spark-sql/warehouse/t")
    p.add_argument("--partitions", type=int, default=200)
    p.add_argument("--rows", type=int, default=150_000)
    p.add_argument("--row-group-bytes", type=int, default=4_400_000)
    p.add_argument("--layout", choices=["spark", "pyarrow"] + list(ORC_LAYOUTS), default="spark",
                   help="how 'write' writes the table")
    p.add_argument("--stripe-bytes", type=int, default=1 << 20, help="pyarrow-orc-stripes' stripe size")
    p.add_argument("--format", choices=["parquet", "orc"], default="parquet", help="how 'query' reads the table")
    args = p.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if args.mode == "query":
        query(args)
    elif args.layout != "spark":
        write_pyarrow(args)
    else:
        write(args)


if __name__ == "__main__":
    main()
