/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.Counter;
import dev.slipstream.ListEntry;
import dev.slipstream.Listing;
import dev.slipstream.Slipstream;
import java.io.BufferedWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code slipstream du s3://bucket/prefix}: one flat parallel listing of the prefix, summed as it
 * arrives ({@link NextLevelTotals}); each common prefix's line is printed once the listing has passed
 * it, the total last. On a terminal a progress line keeps the user company during a long listing;
 * the summary on stderr says what the listing cost.
 */
@Command(name = "du", sortOptions = false,
    description = {
        "Sum the bytes and objects under an S3 prefix.",
        "A line per common prefix one level down (a \"directory\"), as du does, then the total; -s for the"
            + " total alone.",
        "Columns: bytes (or with -h a binary size), objects, prefix. The total is the last line. Listed with"
            + " Slipstream's flat parallel listing, 1,000 keys a request; a summary on stderr gives the LIST"
            + " requests, the objects and the seconds.",
        "Exits 1 if nothing is under a non-empty prefix."})
final class DuCommand implements Callable<Integer> {
  /** A listing shorter than this shows no progress at all. */
  private static final long PROGRESS_INTERVAL_MILLIS = 500;

  @ParentCommand
  SlipstreamCli cli;

  @Parameters(index = "0", paramLabel = "S3_URI", description = "What to sum: s3://bucket[/prefix].")
  String target;

  @Option(names = {"-s", "--summarize"}, order = 1, description = "Only the total, no line per common prefix.")
  boolean summarize;

  @Option(names = {"-h", "--human-readable"}, order = 2, description = "Sizes as 1.5 GiB rather than bytes.")
  boolean human;

  @Option(names = {"-q", "--quiet"}, order = 3, description = "No progress line and no summary on stderr.")
  boolean quiet;

  @Option(names = "--help", usageHelp = true, order = 4, description = "Show this help message and exit.")
  boolean help;

  @Mixin
  S3Options s3;

  @Override
  public Integer call() throws Exception {
    S3Prefix where = S3Prefix.parse(target);
    var config = s3.toConfig();
    Writer out = new BufferedWriter(new OutputStreamWriter(new Transfer.StdoutStream(cli.stdout()), cli.charset()));
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      long start = System.nanoTime();
      try (Listing listing = client.lister().list(where.bucket(), where.prefix())) {
        AtomicLong objects = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        Progress progress = quiet || !cli.terminal() ? null
            : Progress.start(cli.stderr(), true, PROGRESS_INTERVAL_MILLIS, new ListingLine(where.toString(),
                objects::get, bytes::get, () -> listing.statistics().get(Counter.LIST_REQUESTS), start));
        StringBuilder lines = new StringBuilder();
        NextLevelTotals totals = new NextLevelTotals(where.prefix(),
            summarize ? null : t -> lines.append(line(where.bucket(), t)).append('\n'));
        NextLevelTotals.Total total;
        try {
          for (List<ListEntry> page = listing.nextPage(); !page.isEmpty(); page = listing.nextPage()) {
            long pageBytes = 0;
            for (ListEntry e : page) {
              totals.add(e);
              pageBytes += e.size();
            }
            objects.addAndGet(page.size());
            bytes.addAndGet(pageBytes);
            emit(lines, out, progress);
          }
          total = totals.finish();
          emit(lines, out, progress);
        } finally {
          if (progress != null) {
            progress.stopAndErase();
          }
        }
        if (total.objects() == 0 && !where.prefix().isEmpty()) {
          throw new FileNotFoundException(where + ": no such key or prefix");
        }
        out.write(line(where.bucket(), total));
        out.write('\n');
        out.flush();
        if (!quiet) {
          cli.stderr().printf("Listed %s (%s) under %s in %s, %s%n", Sizes.plural(total.objects(), "object", "objects"),
              Sizes.binary(total.bytes()), where, Sizes.plural(listing.statistics().get(Counter.LIST_REQUESTS), "LIST",
                  "LISTs"), Sizes.seconds(System.nanoTime() - start));
          cli.stderr().flush();
        }
      }
    }
    return Errors.OK;
  }

  /** Writes the lines gathered so far to stdout, clear of the progress line. */
  private static void emit(StringBuilder lines, Writer out, Progress progress) throws IOException {
    if (lines.length() == 0) {
      return;
    }
    Progress.Output write = () -> {
      out.append(lines);
      out.flush();
    };
    if (progress != null) {
      progress.above(write);
    } else {
      write.write();
    }
    lines.setLength(0);
  }

  /** {@code      1234567      1000  s3://b/logs/2026/}: fixed widths, as lines go out one by one. */
  private String line(String bucket, NextLevelTotals.Total t) {
    String size = human ? Sizes.binary(t.bytes()) : Long.toString(t.bytes());
    return String.format(Locale.ROOT, "%13s  %9d  s3://%s/%s", size, t.objects(), bucket, t.prefix());
  }
}
