# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""One Spark SQL job of the spark-sql benchmark, run by a pyspark installation's own Python.

mode 'write' writes the partitioned table with S3A classic straight to the server (no shaping), as Spark
writes it (--layout spark) or as pyarrow does, written locally by pyarrow and copied up through S3A:
--layout pyarrow, Parquet with two row groups a file, every column dictionary-encoded;
--layout pyarrow-varied, the same with files of half to one and a half times the rows, in no order of their names;
--layout pyarrow-orc-one-stripe, ORC (Snappy) in one stripe a file (pyarrow's 64 MiB stripe size);
--layout pyarrow-orc-stripes, ORC (Snappy) in stripes of about 1 MiB (--stripe-bytes), several a file;
mode 'download' copies a table from the server into a local directory, for the reader local-disk;
mode 'query' runs q1 and q2 cold in a new local[2] session with one reader, over the table as --format
(parquet or orc), reading the shaped link's counters (a file kept by dev.slipstream.testkit.ShapedS3Main)
before and after each query, and prints one JSON line: times, bytes the link delivered, requests, a
digest of the answers, and what the JVM cost (class Cost): per query and for the whole job (from the
moment it asked for its session, the JVM's launch included, to the end of q2) its CPU seconds (all
threads, /proc), its peak heap used (its GC log), vcore-seconds and GB-seconds of heap held and of heap
used at its peak; for Slipstream, the JVM's Slipstream counters that are not 0 (its guesses: open-ahead,
readahead, row groups ahead, predicted columns; used and wasted). The reader local-disk reads the
table's copy on local disk (file://, the page cache warm from the copy): the I/O-free limit.
"""
import argparse
import hashlib
import json
import os
import re
import tempfile
import time

from pyspark.sql import SparkSession

Q1 = "SELECT dt, count(*), sum(c01 % 1000003) FROM t WHERE c02 < 0 GROUP BY dt ORDER BY dt"
# 2 columns of half the partitions: dt >= '100' of 200
Q2 = "SELECT c06, avg(c05 % 1000003) FROM t WHERE dt >= '{:03d}' GROUP BY c06 ORDER BY c06"
ORC_LAYOUTS = {"pyarrow-orc-one-stripe": 64 << 20, "pyarrow-orc-stripes": None}  # the stripe size; None: --stripe-bytes
SLIPSTREAM_FS = "dev.slipstream.hadoop.SlipstreamS3AFileSystem"
LOCAL_DISK = "local-disk"  # the reader of the table's copy on local disk (file://): the I/O-free limit


def link_counters(path):
    with open(path) as f:
        sent, requests, gets, heads = (int(x) for x in f.read().split())
    return {"bytes": sent, "requests": requests, "gets": gets, "heads": heads}


def session(args, reader, endpoint):
    return builder(args, reader, endpoint).getOrCreate()


def builder(args, reader, endpoint):
    """The session's builder: local[--tasks] (2 unless given), the S3A settings of the server, the reader's file
    system."""
    b = (SparkSession.builder.master("local[%d]" % getattr(args, "tasks", 2)).appName("spark-sql-" + reader)
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


def download(args):
    """Copies the table's files from the server (S3A classic, unshaped) into a local directory, under the
    same relative paths: the local-disk reader's table, read through file:// (no .crc files: the raw
    local file system). Only what Spark reads as the table: no path with a part starting with '_' or '.'
    (Spark's job leaves _temporary/ and _SUCCESS)."""
    spark = session(args, "classic", args.direct)
    Path = spark._jvm.org.apache.hadoop.fs.Path
    root = Path(args.table)
    fs = root.getFileSystem(spark._jsc.hadoopConfiguration())
    prefix = fs.makeQualified(root).toString().rstrip("/") + "/"
    files = fs.listFiles(root, True)
    while files.hasNext():
        path = files.next().getPath().toString()
        rel = path[len(prefix):]
        if path.startswith(prefix) and not any(p.startswith(("_", ".")) for p in rel.split("/")):
            fs.copyToLocalFile(False, Path(path), Path("file://" + os.path.join(args.local, rel)), True)
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
            # pyarrow-varied: from half to one and a half times the rows, in no order of the partitions' names,
            # so that files differ in size as a real table's do (random columns of equal rows make equal files).
            rows = args.rows if args.layout != "pyarrow-varied" else args.rows // 2 + (p * 7919) % (args.rows + 1)
            cols = {}
            for i in range(1, 9):
                cols["c%02d" % i] = rng.integers(-2**63, 2**63 - 1, size=rows, dtype=np.int64)
            cols["c06"] = np.arange(rows, dtype=np.int64) % 10
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
                               row_group_size=(rows + 1) // 2, compression="snappy")
        # Through S3A's output stream, not its optimized copy: see tpch_job.upload.
        spark = (builder(args, "classic", args.direct)
                 .config("spark.hadoop.fs.s3a.optimized.copy.from.local.enabled", "false").getOrCreate())
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


# ---- what a job's JVMs cost: CPU, heap, vcore-seconds, GB-seconds (tpch_job.py uses these too) ----

CLK_TCK = os.sysconf("SC_CLK_TCK")
# A line of the JVM's unified GC log (-Xlog:gc with the timemillis decorator): the heap used before and
# after a collection, and the heap committed, e.g. "[1764412800123ms] GC(3) Pause Young (Normal) (G1
# Evacuation Pause) 120M->30M(2048M) 4.321ms".
GC_LINE = re.compile(r"^\[(\d+)ms\].*\bGC\(\d+\).* (\d+)([KMG])->(\d+)([KMG])\((\d+)([KMG])\)")
UNIT_MB = {"K": 1 / 1024, "M": 1, "G": 1024}


def gc_option(directory, name):
    """The JVM option that logs every collection of a JVM to directory/name.log (name may hold %p, the JVM's pid)."""
    return "-Xlog:gc:file=%s:timemillis" % os.path.join(directory, name + ".log")


def proc_stat(pid):
    """/proc/<pid>/stat's fields after the command's name (which may hold spaces): fields[0] is the state."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()


def process_cpu_s(pid):
    """The CPU seconds a process has used since it started, all its threads: utime + stime."""
    fields = proc_stat(pid)
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def boot_time():
    with open("/proc/stat") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("btime "))


def gc_events(path):
    """(epoch ms, heap used before MB, heap used after MB) of each collection a GC log names."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        m = GC_LINE.match(line)
        if m:
            out.append((int(m.group(1)), float(m.group(2)) * UNIT_MB[m.group(3)],
                        float(m.group(4)) * UNIT_MB[m.group(5)]))
    return out


def peak_mb(events, start_ms, end_ms, samples=()):
    """The most heap used between two instants: the heap before each collection within them (G1 collects
    when the heap has grown to what it allows: the peaks), the heap after the last collection before their
    end (what was then left), and the heap used at either end where it was read (samples)."""
    before = [b for t, b, _ in events if start_ms <= t <= end_ms]
    left = [a for t, _, a in events if t <= end_ms][-1:]
    return max(before + left + list(samples) + [0.0])


class Cost:
    """What one job's JVMs cost, read at instants the job chooses (sample()) and compared (between()).

    The JVMs: the driver, which in local mode runs the tasks (local[N]), and in --cluster mode the
    executor JVMs (CoarseGrainedExecutorBackend, started by the driver's workers: found among its
    descendants in /proc, their cores and heap read from their command lines).
    - CPU seconds: each JVM's utime + stime from /proc/<pid>/stat, every thread (tasks, Spark's own,
      the reader's fetchers and copies, JIT and GC).
    - Peak heap: from each JVM's GC log (gc_option): the heap used before each collection, and for the
      driver the heap used (MemoryMXBean) at either end of the window too. A sum over the JVMs.
    - vcore-seconds, as YARN bills a container: the cores it holds × the time it holds them. local[N]:
      N × the wall time. --cluster: each executor's cores × its part of the window, plus the driver's
      spark.driver.cores (1) × the window (the driver's container in YARN's cluster mode).
    - GB-seconds held (GiB × s): the heap each JVM may use (-Xmx: spark.driver.memory, each executor's
      memory) × the same time; YARN adds spark.executor.memoryOverhead to a container, not counted here.
      GB-seconds of peak used: each JVM's peak heap used in the window × the same time.
    """

    def __init__(self, spark, started, gc_dir):
        self.spark, self.started, self.gc_dir = spark, started, gc_dir
        jvm = spark._jvm
        self.driver = jvm.java.lang.ProcessHandle.current().pid()
        self.memory = jvm.java.lang.management.ManagementFactory.getMemoryMXBean()
        conf = spark.sparkContext.getConf()
        self.driver_heap_mb = jvm.org.apache.spark.network.util.JavaUtils.byteStringAsMb(
            conf.get("spark.driver.memory", "1g"))
        m = re.match(r"local\[(\d+|\*)", spark.sparkContext.master)
        self.local_cores = (os.cpu_count() if m.group(1) == "*" else int(m.group(1))) if m else None
        self.driver_cores = 0 if self.local_cores else int(conf.get("spark.driver.cores", "1"))
        self.boot = boot_time()
        self.executors = {}  # pid: (cores, heap MB, start epoch s)

    def _find_executors(self):
        children = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    children.setdefault(int(proc_stat(int(d))[1]), []).append(int(d))
                except (OSError, IndexError, ValueError):
                    pass  # gone meanwhile
        todo, seen = [self.driver], set()
        while todo:
            for c in children.get(todo.pop(), []):
                if c in seen:
                    continue
                seen.add(c)
                todo.append(c)
                if c in self.executors:
                    continue
                try:
                    with open("/proc/%d/cmdline" % c, "rb") as f:
                        argv = f.read().decode(errors="replace").split("\0")
                    start = self.boot + int(proc_stat(c)[19]) / CLK_TCK
                except OSError:
                    continue
                if "org.apache.spark.executor.CoarseGrainedExecutorBackend" not in argv:
                    continue
                cores = int(argv[argv.index("--cores") + 1]) if "--cores" in argv else 1
                xmx = next((a[4:] for a in argv if a.startswith("-Xmx")), "1g")
                heap = self.spark._jvm.org.apache.spark.network.util.JavaUtils.byteStringAsMb(xmx)
                self.executors[c] = (cores, heap, start)

    def sample(self):
        """The JVMs' CPU seconds so far and the driver's heap used, now."""
        if not self.local_cores:
            self._find_executors()
        cpu = {}
        for pid in [self.driver] + list(self.executors):
            try:
                cpu[pid] = process_cpu_s(pid)
            except OSError:
                pass  # an executor that ended: its last sample stands
        heap = self.memory.getHeapMemoryUsage().getUsed() / (1 << 20)
        return {"t": time.time(), "cpu": cpu, "heap_mb": heap}

    def start(self):
        """The job's start: before its session was asked for, every JVM at 0 CPU seconds."""
        return {"t": self.started, "cpu": {}, "heap_mb": 0.0}

    def between(self, a, b):
        """The cost of what ran from sample a to sample b."""
        seconds = b["t"] - a["t"]
        cpu = sum(v - a["cpu"].get(pid, 0.0) for pid, v in b["cpu"].items())
        a_ms, b_ms = int(a["t"] * 1000), int(b["t"] * 1000)
        driver_peak = peak_mb(gc_events(os.path.join(self.gc_dir, "driver.log")), a_ms, b_ms,
                              [b["heap_mb"]] + ([a["heap_mb"]] if a["cpu"] else []))
        cores = self.local_cores or self.driver_cores
        vcore_s, held_gb_s = cores * seconds, self.driver_heap_mb / 1024 * seconds
        peak, peak_gb_s = driver_peak, driver_peak / 1024 * seconds
        for pid, (ecores, heap, started) in self.executors.items():
            held = max(0.0, b["t"] - max(a["t"], started))
            p = peak_mb(gc_events(os.path.join(self.gc_dir, "executor-%d.log" % pid)), a_ms, b_ms)
            vcore_s += ecores * held
            held_gb_s += heap / 1024 * held
            peak_gb_s += p / 1024 * held
            peak += p
        return {"s": round(seconds, 3), "cpu_s": round(cpu, 2), "vcore_s": round(vcore_s, 2),
                "heap_gb_s": round(held_gb_s, 2), "peak_heap_mb": round(peak), "peak_heap_gb_s": round(peak_gb_s, 2)}

    def shape(self):
        """What the job held: its cores and heap, the driver's and each executor's."""
        out = {"driver_heap_mb": self.driver_heap_mb, "cores": self.local_cores or self.driver_cores}
        if self.executors:
            out["executors"] = [{"cores": c, "heap_mb": h} for c, h, _ in self.executors.values()]
            out["cores"] += sum(c for c, _, _ in self.executors.values())
        return out


def slipstream_counters(spark):
    """The Slipstream counters of the driver JVM (ReadStatistics.global(): every client of the JVM, so the
    tasks' reads in local mode), the ones not 0; None where the class is not to be had. The JVM's Hadoop
    FileSystems are closed first, so that what their clients still hold (streams opened ahead and never
    taken) is counted as wasted, with the bytes fetched ahead for them and never read."""
    try:
        spark._jvm.org.apache.hadoop.fs.FileSystem.closeAll()
        stats = getattr(spark._jvm.dev.slipstream.ReadStatistics, "global")()
        return {k: v for k, v in dict(stats.snapshot()).items() if v}
    except Exception:  # a JavaPackage (no such class on the driver's class path) is not callable
        return None


def query(args):
    started = time.time()
    gc_dir = tempfile.mkdtemp(prefix="spark-gc-")  # in the job's own temporary directory
    b = builder(args, args.reader, args.endpoint)
    # SPARK_JOB_JAVA_OPTS: more options for the query jobs' JVM alone (a profiler's agent, say), not the
    # table writer's or the S3 server's.
    java_opts = (gc_option(gc_dir, "driver") + " " + os.environ.get("SPARK_JOB_JAVA_OPTS", "")).strip()
    spark = b.config("spark.driver.extraJavaOptions", java_opts).getOrCreate()
    cost = Cost(spark, started, gc_dir)
    out = {"reader": args.reader, "spark": spark.version, "table": args.table.rsplit("/", 1)[-1]}
    digest = hashlib.sha256()
    before = link_counters(args.stats)
    t0 = time.monotonic()
    out["q1_start_ms"] = int(time.time() * 1000)
    c0 = cost.sample()
    (spark.read.orc(args.table) if args.format == "orc" else spark.read.parquet(args.table)).createOrReplaceTempView("t")
    for name, sql in (("q1", Q1), ("q2", Q2.format(args.partitions // 2))):
        if name == "q2":
            before = link_counters(args.stats)
            t0 = time.monotonic()
            out["q2_start_ms"] = int(time.time() * 1000)
            c0 = cost.sample()
        rows = spark.sql(sql).collect()
        seconds = time.monotonic() - t0
        c1 = cost.sample()
        out[name + "_end_ms"] = int(time.time() * 1000)  # to line up with the shaped link's --requests log
        c = cost.between(c0, c1)
        for k in ("cpu_s", "vcore_s", "heap_gb_s", "peak_heap_mb", "peak_heap_gb_s"):
            out[name + "_" + k] = c[k]
        time.sleep(0.2)  # the counters file is rewritten every 50 ms
        after = link_counters(args.stats)
        out[name + "_s"] = round(seconds, 2)
        for k in ("bytes", "gets", "heads"):
            out[name + "_" + k] = after[k] - before[k]
        digest.update(repr([tuple(r) for r in rows]).encode())
    # the job: from the moment it asked for its session (the JVM's launch) to the end of q2
    for k, v in cost.between(cost.start(), c1).items():
        out["job_" + k] = v
    out.update(cost.shape())
    if args.reader.startswith("slipstream"):
        out["slipstream_counters"] = slipstream_counters(spark)
    out["answers"] = digest.hexdigest()[:16]
    spark.stop()
    print("RESULT " + json.dumps(out), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["write", "download", "query"], required=True)
    p.add_argument("--reader", choices=["classic", "analytics", "slipstream", LOCAL_DISK], default="classic")
    p.add_argument("--local", help="'download': the local directory the table is copied into")
    p.add_argument("--endpoint")
    p.add_argument("--direct")
    p.add_argument("--stats")
    p.add_argument("--access-key", required=True)
    p.add_argument("--secret-key", required=True)
    p.add_argument("--jars", required=True)
    p.add_argument("--table", default="s3a://spark-sql/warehouse/t")
    p.add_argument("--partitions", type=int, default=200)
    p.add_argument("--tasks", type=int, default=2, help="'query': tasks at once, local[N]")
    p.add_argument("--rows", type=int, default=150_000)
    p.add_argument("--row-group-bytes", type=int, default=4_400_000)
    p.add_argument("--layout", choices=["spark", "pyarrow", "pyarrow-varied"] + list(ORC_LAYOUTS), default="spark",
                   help="how 'write' writes the table")
    p.add_argument("--stripe-bytes", type=int, default=1 << 20, help="pyarrow-orc-stripes' stripe size")
    p.add_argument("--format", choices=["parquet", "orc"], default="parquet", help="how 'query' reads the table")
    args = p.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if args.mode == "query":
        query(args)
    elif args.mode == "download":
        download(args)
    elif args.layout != "spark":
        write_pyarrow(args)
    else:
        write(args)


if __name__ == "__main__":
    main()
