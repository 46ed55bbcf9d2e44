/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import java.io.IOException;
import java.util.List;

/**
 * Parse time of one footer, {@link ParquetFooter}'s parser against parquet-format-structures' (what
 * parquet-java reads footers with), on the same footers: small, medium and large (a file of many row
 * groups and columns, with page indexes). Each parser runs alternately for a round of about 200 ms, five
 * rounds after a warm-up; the fastest round of each is printed, in microseconds a footer. Run from the
 * module's test classpath:
 * {@code java -cp <test classpath> dev.slipstream.internal.parquet.ParquetFooterParseBench}. Not a test: it
 * asserts nothing and times things.
 */
public final class ParquetFooterParseBench {
  private ParquetFooterParseBench() {}

  private interface Parse {
    Object run(byte[] b, int off, int len) throws IOException;
  }

  public static void main(String[] args) throws IOException {
    int[][] shapes = {{4, 8, 0}, {16, 50, 1}, {64, 200, 1}}; // row groups, columns, page indexes
    System.out.printf("%-22s %10s %14s %16s %8s%n", "footer", "bytes", "ours (us)", "parquet-format", "ratio");
    for (int[] shape : shapes) {
      byte[] file = ParquetTestFiles.file(shape[0], shape[1], 100, 20,
          shape[2] == 1 ? shape[0] * shape[1] * 64 : 0, 7);
      int[] at = ParquetFormatFooters.footerOf(file);
      Parse ours = (b, off, len) -> ParquetFooter.parseFooter(b, off, len, file.length);
      Parse theirs = ParquetFormatFooters::chunks;
      double bestOurs = Double.MAX_VALUE;
      double bestTheirs = Double.MAX_VALUE;
      for (int round = 0; round < 8; round++) {
        double o = time(ours, file, at);
        double t = time(theirs, file, at);
        if (round >= 3) { // the first rounds warm the JIT up
          bestOurs = Math.min(bestOurs, o);
          bestTheirs = Math.min(bestTheirs, t);
        }
      }
      System.out.printf("%-22s %10d %14.1f %16.1f %8.2f%n",
          shape[0] + " x " + shape[1] + (shape[2] == 1 ? " + indexes" : ""), at[1], bestOurs / 1000,
          bestTheirs / 1000, bestTheirs / bestOurs);
    }
  }

  /** Nanoseconds a parse, over a round of about 200 ms. */
  private static double time(Parse p, byte[] file, int[] at) throws IOException {
    long sink = 0;
    int n = 0;
    long t0 = System.nanoTime();
    long end = t0 + 200_000_000L;
    long now;
    do {
      Object r = p.run(file, at[0], at[1]);
      sink += r instanceof List<?> l ? l.size() : ((ParquetFooter) r).rowGroupCount();
      n++;
      now = System.nanoTime();
    } while (now < end);
    if (sink == 42) {
      System.out.print(""); // keeps the results alive
    }
    return (double) (now - t0) / n;
  }
}
