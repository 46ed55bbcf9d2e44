#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""The spark-sql benchmark: real Spark distributions (pyspark from PyPI, each with its own Hadoop)
querying a partitioned Parquet table through S3A classic, S3A analytics (where that Hadoop has it) and
Slipstream, against s3proxy behind the shaped link. Run from the repository root:

    python3 slipstream-bench/spark/run_spark_sql.py --spark 4.0.1,4.3.0

Each job starts cold, in a new local[2] session and JVM (--tasks N: local[N]): partition discovery and q1 (2 of 8 columns of
every partition), then q2 (2 columns of half the partitions). Reported per job: seconds, the bytes the
shaped link delivered, GETs and HEADs; the answers must be identical across readers. The reader local-disk
(in the default --readers) runs the same queries over the table's copy on local disk (file://, copied
from the server after the write): the I/O-free limit; each reader's q1, q2 and job seconds are printed
as a ratio to its. What each job cost, per query and for the whole job (from its start, the JVM's launch
included), against S3A classic's (spark_sql_job.Cost says how each is read): the JVM's CPU seconds, all
threads; its peak heap used (its GC log); vcore-seconds (the cores held, 2, x wall seconds) and
GB-seconds of heap held (-Xmx x wall seconds) and of peak heap used (peak x wall seconds), as YARN bills
a container. For Slipstream, its guesses per job from its counters: hit rate (used over used and
wasted) and what was fetched ahead unused, and its bytes from S3 against the bytes it returned. The table is written
in two layouts (--layouts): as Spark writes it, and as pyarrow does (two row groups a file, every column
dictionary-encoded, so that Parquet's dictionary filter reads each row group's dictionary page).

--format orc runs the same queries over ORC tables written by pyarrow (Snappy), in two layouts: one stripe
a file (pyarrow-orc-one-stripe) and stripes of about 1 MiB, 5 a file (pyarrow-orc-stripes; --stripe-bytes).
Its default size is issue 45's table: 100 partitions of one file of 107,000 rows, 6 MB. After the table it
prints, per layout and Spark, each reader's GETs per file and bytes against S3A classic's. The size knobs
(--partitions, --rows) serve both formats: e.g. --format orc --partitions 8 for a quick check.

    python3 slipstream-bench/spark/run_spark_sql.py --format orc --spark 4.0.1,4.3.0

To compare the requests of two readers, --requests FILE logs every request the shaped link relayed, and
each job's result carries its queries' start and end (epoch ms) and the Spark JVM's CPU seconds per query.
Slipstream's own log of its GETs (which stream, why) is the logger dev.slipstream.requests at DEBUG: give the
jobs a log4j2 configuration with that logger, e.g. JAVA_TOOL_OPTIONS=-Dlog4j2.configurationFile=FILE.
"""
import argparse
import glob
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORK = ROOT / "slipstream-bench" / "target" / "spark-sql"
SDK_MODULES = {
    "annotations", "apache-client", "arns", "auth", "aws-core", "aws-query-protocol", "aws-xml-protocol",
    "checksums", "checksums-spi", "crt-core", "endpoints-spi", "http-auth", "http-auth-aws",
    "http-auth-aws-eventstream", "http-auth-spi", "http-client-spi", "identity-spi", "json-utils",
    "metrics-spi", "netty-nio-client", "profiles", "protocol-core", "regions", "retries", "retries-spi", "s3",
    "s3-transfer-manager", "sdk-core", "sts", "third-party-jackson-core", "utils", "utils-lite",
    "hadoop-aws", "analyticsaccelerator-s3", "eventstream", "reactive-streams"}
# The Maven profile whose dependencies match a Hadoop line, and whether S3A has the analytics stream.
HADOOP_LINES = {"3.4.1": ("hadoop-3.4", False), "3.5.0": (None, True)}
# Per format: its layouts (the first ones the default), and the default partitions and rows per partition.
FORMATS = {"parquet": (["spark", "pyarrow"], 200, 150_000),
           "orc": (["pyarrow-orc-one-stripe", "pyarrow-orc-stripes"], 100, 107_000)}
# Layouts run only when named: pyarrow-varied, pyarrow's files of varied sizes (see spark_sql_job.write_pyarrow).
MORE_LAYOUTS = {"parquet": ["pyarrow-varied"], "orc": []}


def run(cmd, **kw):
    print("+ " + " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def mvn(*args, profile=None):
    cmd = [str(ROOT / "mvnw"), "-B", "-q"] + (["-P" + profile] if profile else []) + list(args)
    run(cmd, cwd=ROOT)


def pyspark(version):
    venv = WORK / ("pyspark-" + version)
    python = venv / "bin" / "python"
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "-q", "pyspark==" + version])
    if subprocess.run([str(python), "-c", "import pyarrow, numpy"], capture_output=True).returncode != 0:
        run([str(python), "-m", "pip", "install", "-q", "pyarrow", "numpy"])  # the pyarrow layout's writer
    jars = glob.glob(str(venv / "lib" / "python3*" / "site-packages" / "pyspark" / "jars" / "hadoop-client-api-*.jar"))
    hadoop = pathlib.Path(jars[0]).name[len("hadoop-client-api-"):-len(".jar")]
    return python, hadoop


def s3a_jars(hadoop):
    """hadoop-aws of that Hadoop and the AWS SDK modules it needs (not the 500 MB bundle)."""
    if hadoop not in HADOOP_LINES:
        sys.exit("pyspark ships Hadoop %s; this benchmark knows %s" % (hadoop, ", ".join(HADOOP_LINES)))
    out = WORK / ("s3a-" + hadoop)
    if not out.exists():
        # slipstream-hadoop's test class path under the Hadoop line's profile: -am resolves Slipstream's own
        # modules from this build, not from an install, but runs the goal in each of them too, and they
        # resolve the AWS SDK at the parent's version (2.35 where Hadoop 3.4.1's profile pins 2.24): so the
        # output directory is relative, one a module (Maven resolves it against each module's directory), and
        # only slipstream-hadoop's is read. test-compile, not package: the Slipstream jar under test stays the
        # one built without the profile. Slipstream's modules (classes directories, not jars, before package)
        # and jclouds' s3 and sts APIs (under s3proxy, in the test scope; they share names with SDK modules)
        # are left out.
        rel = "target/s3a-deps-" + hadoop
        tmp = ROOT / "slipstream-hadoop" / rel
        shutil.rmtree(tmp, ignore_errors=True)
        mvn("-pl", "slipstream-hadoop", "-am", "-DskipTests", "test-compile", "dependency:copy-dependencies",
            "-DincludeScope=test", "-DexcludeGroupIds=org.apache.jclouds.api,dev.slipstream",
            "-DoutputDirectory=" + rel, profile=HADOOP_LINES[hadoop][0])
        out.mkdir(parents=True)
        for jar in tmp.glob("*.jar"):
            name = jar.name.rsplit("-", 1)[0] if jar.name.count("-") else jar.name
            base = jar.name[:-4]
            module = next((m for m in SDK_MODULES if base.startswith(m + "-") and base[len(m) + 1:][:1].isdigit()), None)
            if module:
                (out / jar.name).write_bytes(jar.read_bytes())
    return sorted(str(p) for p in out.glob("*.jar"))


def slipstream(jar):
    """The Slipstream jar to test: the one given, or this checkout's, built."""
    if jar:
        return jar
    mvn("-pl", "slipstream-hadoop", "-am", "package", "-DskipTests")
    return [j for j in glob.glob(str(ROOT / "slipstream-hadoop" / "target" / "slipstream-hadoop-*.jar"))
            if not j.endswith(("-sources.jar", "-tests.jar")) and "original" not in j][0]


def shaper(profile, requests=None):
    cp_file = WORK / "testkit.classpath"
    s3proxy = WORK / "s3proxy.jar"
    if not cp_file.exists() or not s3proxy.exists():
        mvn("-pl", "slipstream-testkit,slipstream-core,slipstream-hadoop", "-am", "package", "-DskipTests")
        mvn("-pl", "slipstream-testkit", "dependency:build-classpath", "-Dmdep.outputFile=" + str(cp_file))
        mvn("dependency:copy", "-Dartifact=org.gaul:s3proxy:2.6.0:jar:jar-with-dependencies",
            "-DoutputDirectory=" + str(WORK), "-Dmdep.stripVersion=true", "-Dmdep.stripClassifier=true")
        (WORK / "s3proxy-jar-with-dependencies.jar").exists() and (WORK / "s3proxy-jar-with-dependencies.jar").rename(s3proxy)
    cp = str(ROOT / "slipstream-testkit" / "target" / "classes") + os.pathsep + cp_file.read_text().strip()
    stats = WORK / "link.stats"
    proc = subprocess.Popen(["java", "-Dslipstream.s3proxy.jar=" + str(s3proxy), "-cp", cp,
                             "dev.slipstream.testkit.ShapedS3Main", "--profile", profile, "--stats", str(stats),
                             "--bucket", "spark-sql"] + (["--requests", requests] if requests else []),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
    line = proc.stdout.readline().split()
    if not line:
        stop_shaper(proc)
        sys.exit("ShapedS3Main did not start")
    urls = dict(kv.split("=", 1) for kv in line)
    return proc, urls, stats


def stop_shaper(proc):
    """Ends ShapedS3Main (its standard input closed: it stops s3proxy and itself), or its process group."""
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        kill_group(proc)


def kill_group(proc):
    """Ends a process started with start_new_session=True and everything it started (SIGTERM, then SIGKILL)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            proc.poll()  # reaps the leader: a zombie still counts in its group
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)


def job(cmd, timeout=None):
    """Runs one pyspark job in a process group of its own, ended with everything it started if we stop
    or it outlives the timeout (a JVM short of heap can thrash for hours). Its temporary files (Slipstream's
    disk cache: gigabytes at TPC-H SF10) go to a directory of its own, removed when it ends however it ends."""
    print("+ " + " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="spark-job-") as tmp:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True,
                                env=dict(os.environ, TMPDIR=tmp))
        try:
            out, _ = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                kill_group(proc)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return json.loads(next(l for l in out.splitlines() if l.startswith("RESULT "))[len("RESULT "):])

# ---- the report's measures of a job's cost, shared with run_tpch.py ----

LOCAL_DISK = "local-disk"  # the reader of the tables' copy on local disk: the I/O-free limit
BASELINES = ("classic", "hadoop-s3a")  # the reader the others are compared with: S3A classic (Iceberg: over HadoopFileIO)
COSTS = [("CPU s", "cpu_s", "%.1f"), ("vcore-s", "vcore_s", "%.1f"), ("heap held GB-s", "heap_gb_s", "%.1f"),
         ("peak heap MB", "peak_heap_mb", "%.0f"), ("peak-used GB-s", "peak_heap_gb_s", "%.1f")]
# The guesses of a reader that fetches before it is asked, by the counters' names: (name, unit). A counter
# pair <x>_used / <x>_wasted counts blocks or pieces, <x> / <x>_unread bytes; pairs not named here (a newer
# reader's) are reported too, under their counters' names.
GUESSES = {"open_ahead": "open-ahead (first blocks)", "open_ahead_streams": "open-ahead (streams: tails, footers kept)",
           "prefetch": "readahead (blocks)",
           "row_group_ahead": "row groups ahead (pieces)", "predicted_column_bytes": "predicted columns (bytes)",
           "orc_stripe_ahead_bytes": "ORC stripes ahead (bytes)"}


def ratio(x, base):
    return "%.2fx" % (x / base) if base else "-"


def baseline(rows, row, same):
    """The row of the baseline reader (BASELINES) that same(row, other) pairs with row, or None."""
    for b in BASELINES:
        hit = next((x for x in rows if x["reader"] == b and same(row, x)), None)
        if hit:
            return hit
    return None


def cost_table(title, rows, keys, windows, same):
    """A markdown table of each row's cost per window (e.g. q1 / q2 / job), each measure beside its ratio
    to the baseline reader's row. keys(row): the row's leading cells; windows: names; row[window]: that
    window's measures (COSTS' keys)."""
    names = " / ".join(windows)
    base = next((b for b in BASELINES if any(x["reader"] == b for x in rows)), "-")
    print("\n" + title + "\n")
    print("| " + " | ".join(keys(None)) + " | " + " | ".join(
        "%s %s | x %s" % (h, names, base) if k != "peak_heap_mb" else "%s %s" % (h, names)
        for h, k, _ in COSTS) + " |")
    print("|" + "---|" * len(keys(None)) + "".join("---:|" if k == "peak_heap_mb" else "---:|---:|"
                                                   for _, k, _ in COSTS))
    for r in rows:
        b = baseline(rows, r, same)
        cells = []
        for _, k, fmt in COSTS:
            cells.append(" / ".join(fmt % r[w][k] for w in windows))
            if k != "peak_heap_mb":
                cells.append(" / ".join(ratio(r[w][k], b[w][k]) if b else "-" for w in windows))
        print("| " + " | ".join(keys(r)) + " | " + " | ".join(cells) + " |")


def guesses(counters):
    """(what, fetched ahead, used, wasted, unit) of each guess in a reader's counters (GUESSES)."""
    out = []
    bases = list(GUESSES) + sorted({k[:-len("_used")] for k in counters if k.endswith("_used")} |
                                   {k[:-len("_unread")] for k in counters if k.endswith("_bytes_unread")})
    for base in dict.fromkeys(bases):
        if base.endswith("_bytes"):
            fetched, unread = counters.get(base, 0), counters.get(base + "_unread", 0)
            out.append((GUESSES.get(base, base), fetched, fetched - unread, unread, "bytes"))
        else:
            used, wasted = counters.get(base + "_used", 0), counters.get(base + "_wasted", 0)
            out.append((GUESSES.get(base, base), counters.get(base + "_started", used + wasted), used, wasted, ""))
    return out


def guess_table(rows, keys):
    """Per Slipstream job: each guess's hit rate (used over used and wasted) and what it fetched unused, and
    the bytes it fetched against those it returned. rows: (leading cells, counters)."""
    rows = [(k, c) for k, c in rows if c is not None]
    if not rows:
        return
    print("\nSlipstream's guesses per job (its counters): hit rate = used / (used + wasted); bytes unused = "
          "fetched ahead, never read\n")
    print("| " + " | ".join(keys) + " | guess | fetched ahead | used | wasted or unused | hit rate |")
    print("|" + "---|" * len(keys) + "---|---:|---:|---:|---:|")
    for k, c in rows:
        for what, fetched, used, wasted, unit in guesses(c):
            f = (lambda n: "%.1f MB" % (n / 1e6)) if unit == "bytes" else str  # noqa: E731
            print("| %s | %s | %s | %s | %s | %s |" % (" | ".join(k), what, f(fetched), f(used), f(wasted),
                                                     "%.0f%%" % (100.0 * used / (used + wasted)) if used + wasted else "-"))
        print("| %s | all reads: from S3, returned, GETs | %.1f MB | %.1f MB | %d | |" % (
            " | ".join(k), c.get("bytes_fetched", 0) / 1e6, c.get("bytes_read", 0) / 1e6, c.get("get_requests", 0)))


def per_file(results):
    """Each ORC job's GETs per file (q1 reads every file, q2 half of them) and its seconds and bytes against
    S3A classic's of the same layout and Spark: issue 45's measures."""
    print("\n| layout | Spark | reader | q1 GETs/file | q2 GETs/file | q1+q2 s | vs classic s | q1+q2 MB "
          "| vs classic bytes |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        c = next((x for x in results if x["reader"] == "classic" and x["layout"] == r["layout"]
                  and x["spark"] == r["spark"]), None)
        s, b = r["q1_s"] + r["q2_s"], r["q1_bytes"] + r["q2_bytes"]
        cs, cb = (c["q1_s"] + c["q2_s"], c["q1_bytes"] + c["q2_bytes"]) if c else (0, 0)
        print("| %s | %s | %s | %.1f | %.1f | %.1f | %s | %.0f | %s |" % (
            r["layout"], r["spark"], r["reader"], r["q1_gets"] / r["files"], r["q2_gets"] / (r["files"] - r["files"] // 2),
            s, "%.2fx" % (s / cs) if cs else "-", b / 1e6, "%.2fx" % (b / cb) if cb else "-"))


def report(results):
    """The run's tables: per job its times (and against local-disk's), bytes and requests; its cost against
    S3A classic's; Slipstream's guesses."""
    same = lambda a, b: a["layout"] == b["layout"] and a["spark"] == b["spark"]  # noqa: E731
    limit = lambda r: next((x for x in results if x["reader"] == LOCAL_DISK and same(r, x)), None)  # noqa: E731
    print("| layout | Spark | Hadoop | reader | q1 s | q2 s | job s | q1 MB | q2 MB | GETs | HEADs "
          "| q1 x %s | q2 x %s | job x %s | answers |" % ((LOCAL_DISK,) * 3))
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        d = limit(r)
        print("| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.0f | %.0f | %d | %d | %s | %s | %s | %s |" % (
            r["layout"], r["spark"], r["hadoop"], r["reader"], r["q1_s"], r["q2_s"], r["job_s"], r["q1_bytes"] / 1e6,
            r["q2_bytes"] / 1e6, r["q1_gets"] + r["q2_gets"], r["q1_heads"] + r["q2_heads"],
            ratio(r["q1_s"], d and d["q1_s"]), ratio(r["q2_s"], d and d["q2_s"]), ratio(r["job_s"], d and d["job_s"]),
            r["answers"]))
    windows = ("q1", "q2", "job")
    rows = [dict(r, **{w: {k: r[w + "_" + k] for _, k, _ in COSTS} for w in windows}) for r in results]
    cost_table("What each job cost, per query and for the job (its JVM's launch and discovery included), "
               "against S3A classic's: CPU s, the JVM's, all threads; vcore-s = cores held (local[%d]) x wall "
               "s; heap held GB-s = -Xmx x wall s; peak heap = the most heap used (GC log); peak-used GB-s = "
               "peak heap x wall s" % results[0]["cores"] if results else "", rows,
               lambda r: ["layout", "Spark", "reader"] if r is None else [r["layout"], r["spark"], r["reader"]],
               windows, same)
    guess_table([([r["layout"], r["spark"], r["reader"]], r.get("slipstream_counters"))
                 for r in results if r["reader"].startswith("slipstream")], ["layout", "Spark", "reader"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spark", default="4.0.1,4.3.0", help="pyspark versions, comma-separated")
    p.add_argument("--readers", default="classic,analytics,slipstream," + LOCAL_DISK,
                   help="default %(default)s; " + LOCAL_DISK + ": the table copied to local disk, read through file://")
    p.add_argument("--profile", default="s3-like")
    p.add_argument("--format", choices=list(FORMATS), default="parquet", help="the tables' format")
    p.add_argument("--partitions", type=int, help="partitions, one file each (default: parquet 200, orc 100)")
    p.add_argument("--rows", type=int, help="rows per partition (default: parquet 150,000, about 8 MB a file; "
                                            "orc 107,000, about 6 MB)")
    p.add_argument("--layouts", help="table layouts: spark, pyarrow, pyarrow-varied (parquet); pyarrow-orc-one-stripe, "
                                     "pyarrow-orc-stripes (orc); default: the format's")
    p.add_argument("--stripe-bytes", type=int, default=1 << 20, help="pyarrow-orc-stripes' stripe size")
    p.add_argument("--out", help="write the results as JSON lines here")
    p.add_argument("--requests", help="write every request the shaped link relayed here, one a line: start, "
                                      "first byte and end in epoch ms, method, path, range, status")
    p.add_argument("--slipstream-jar", help="the Slipstream jar to test (default: build this checkout's)")
    p.add_argument("--tasks", type=int, default=2, help="tasks each job runs at once: local[N] (default 2, the "
                                                         "machine's cores here)")
    args = p.parse_args()
    known, partitions, rows = FORMATS[args.format]
    args.partitions = partitions if args.partitions is None else args.partitions
    args.rows = rows if args.rows is None else args.rows
    layouts = [l.strip() for l in (args.layouts or ",".join(known)).split(",") if l.strip()]
    known = known + MORE_LAYOUTS[args.format]
    if not layouts or any(l not in known for l in layouts):
        p.error("--layouts of --format %s: %s" % (args.format, ", ".join(known)))
    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    if not readers or any(r not in ("classic", "analytics", "slipstream", LOCAL_DISK) for r in readers):
        p.error("--readers: classic, analytics, slipstream, " + LOCAL_DISK)
    if args.tasks < 1:
        p.error("--tasks must be at least 1")
    if args.partitions < 2 or args.rows < 1:
        p.error("--partitions must be at least 2 (q2 reads half of them), --rows at least 1")
    WORK.mkdir(parents=True, exist_ok=True)
    slipstream_jar = slipstream(args.slipstream_jar)
    versions = [v.strip() for v in args.spark.split(",") if v.strip()]
    installs = {v: pyspark(v) for v in versions}
    job_py = str(ROOT / "slipstream-bench" / "spark" / "spark_sql_job.py")
    proc, urls, stats = shaper(args.profile, args.requests)
    endpoint, direct = urls["endpoint"], urls["direct"]
    keys = ["--access-key", urls["access"], "--secret-key", urls["secret"]]
    results = []
    try:
        newest = versions[-1]
        python, hadoop = installs[newest]
        jars = ",".join(s3a_jars(hadoop) + [slipstream_jar])
        tables = {l: "s3a://spark-sql/warehouse/" + ("t" if l == "spark" else "t_" + l.replace("-", "_"))
                  for l in layouts}
        for layout in layouts:
            t0 = time.monotonic()
            run([str(python), job_py, "--mode", "write", "--layout", layout, "--table", tables[layout],
                 "--direct", direct, "--jars", jars, "--partitions", str(args.partitions), "--rows",
                 str(args.rows), "--stripe-bytes", str(args.stripe_bytes)] + keys)
            print("%s table written in %.0f s" % (layout, time.monotonic() - t0), file=sys.stderr)
        local = {l: WORK / "local-tables" / tables[l].rsplit("/", 1)[-1] for l in layouts}
        if LOCAL_DISK in readers:  # the same files, from the server to local disk
            for layout in layouts:
                shutil.rmtree(local[layout], ignore_errors=True)
                local[layout].parent.mkdir(parents=True, exist_ok=True)
                run([str(python), job_py, "--mode", "download", "--table", tables[layout], "--local",
                     str(local[layout]), "--direct", direct, "--jars", jars] + keys)
        for layout in layouts:
            for v in versions:
                python, hadoop = installs[v]
                jars = ",".join(s3a_jars(hadoop) + [slipstream_jar])
                for reader in readers:
                    if reader == "analytics" and not HADOOP_LINES[hadoop][1]:
                        continue
                    table = "file://" + str(local[layout]) if reader == LOCAL_DISK else tables[layout]
                    r = job([str(python), job_py, "--mode", "query", "--reader", reader, "--endpoint", endpoint,
                             "--table", table, "--stats", str(stats), "--jars", jars, "--format",
                             args.format, "--partitions", str(args.partitions), "--tasks", str(args.tasks)] + keys)
                    r["hadoop"] = hadoop
                    r["layout"] = layout
                    if args.format == "orc":
                        r["format"], r["files"] = "orc", args.partitions
                    results.append(r)
                    print(json.dumps(r), file=sys.stderr, flush=True)
    finally:
        stop_shaper(proc)
        shutil.rmtree(WORK / "local-tables", ignore_errors=True)  # the tables' local copies (GBs at full size)
    report(results)
    if args.format == "orc":
        per_file(results)
    if args.out:
        with open(args.out, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    for layout in {r["layout"] for r in results}:
        if len({r["answers"] for r in results if r["layout"] == layout}) > 1:
            sys.exit("the readers' answers differ on the %s table" % layout)


if __name__ == "__main__":
    main()
