/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.LevelListing;
import dev.slipstream.LevelPage;
import dev.slipstream.ListEntry;
import dev.slipstream.Listing;
import dev.slipstream.S3KeyOrder;
import dev.slipstream.Slipstream;
import java.io.BufferedWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code slipstream ls s3://bucket/prefix}. Lines go to stdout page by page, as the LIST responses
 * arrive, and are flushed after each page: the command holds one page (1,000 keys) at a time, plus what
 * the recursive listing reads ahead (a couple of pages per key range, see {@link dev.slipstream.Lister}).
 */
@Command(name = "ls", sortOptions = false,
    description = {
        "List the objects and common prefixes under an S3 prefix.",
        "One line each: date (UTC), size and key; PRE marks a common prefix (a \"directory\").",
        "The prefix is a plain key prefix: s3://b/logs also shows logs.csv and logs2/; s3://b/logs/ lists"
            + " inside logs/. Lines are printed as the listing arrives, in key order.",
        "Exits 1 if nothing is under a non-empty prefix."})
final class LsCommand implements Callable<Integer> {
  @ParentCommand
  SlipstreamCli cli;

  @Parameters(index = "0", paramLabel = "S3_URI", description = "What to list: s3://bucket[/prefix].")
  String target;

  @Option(names = {"-r", "--recursive"}, order = 1,
      description = "Every object under the prefix, at any depth, through Slipstream's flat parallel listing.")
  boolean recursive;

  @Option(names = "-l", order = 2, description = "Show each object's ETag too.")
  boolean etags;

  @Option(names = {"-h", "--human-readable"}, order = 3, description = "Sizes as 1.5 MiB rather than bytes.")
  boolean human;

  @Option(names = "--json", order = 4,
      description = "One JSON object per line: {\"key\",\"size\",\"lastModified\",\"etag\"}, or {\"prefix\"}.")
  boolean json;

  @Option(names = "--help", usageHelp = true, order = 5, description = "Show this help message and exit.")
  boolean help;

  @Mixin
  S3Options s3;

  @Override
  public Integer call() throws Exception {
    S3Prefix where = S3Prefix.parse(target);
    ListingFormat format = json ? new ListingJson() : new ListingText(etags, human);
    var config = s3.toConfig();
    Writer out = new BufferedWriter(new OutputStreamWriter(new Transfer.StdoutStream(cli.stdout()), cli.charset()));
    long lines;
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      lines = recursive ? listTree(client, where, format, out) : listLevel(client, where, format, out);
    } catch (Exception e) {
      try {
        out.flush(); // what was listed before the failure still goes out
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    out.flush();
    if (lines == 0 && !where.prefix().isEmpty()) {
      throw new FileNotFoundException(where + ": no such key or prefix");
    }
    return Errors.OK;
  }

  /** Every object under the prefix, from the flat parallel listing; returns the lines written. */
  private static long listTree(Slipstream client, S3Prefix where, ListingFormat format, Writer out) throws IOException {
    long lines = 0;
    try (Listing listing = client.lister().list(where.bucket(), where.prefix())) {
      for (List<ListEntry> page = listing.nextPage(); !page.isEmpty(); page = listing.nextPage()) {
        for (ListEntry e : page) {
          out.write(format.object(e));
          out.write('\n');
        }
        out.flush();
        lines += page.size();
      }
    }
    return lines;
  }

  /** One level: a page's objects and common prefixes merged in key order; returns the lines written. */
  private static long listLevel(Slipstream client, S3Prefix where, ListingFormat format, Writer out)
      throws IOException {
    long lines = 0;
    LevelListing listing = client.lister().listLevel(where.bucket(), where.prefix());
    while (listing.hasNextPage()) {
      LevelPage page = listing.nextPage();
      List<ListEntry> objects = page.objects();
      List<String> prefixes = page.prefixes();
      int o = 0;
      int p = 0;
      while (o < objects.size() || p < prefixes.size()) {
        boolean object = p >= prefixes.size()
            || (o < objects.size() && S3KeyOrder.compare(objects.get(o).key(), prefixes.get(p)) < 0);
        out.write(object ? format.object(objects.get(o++)) : format.prefix(prefixes.get(p++)));
        out.write('\n');
      }
      out.flush();
      lines += page.size();
    }
    return lines;
  }
}
