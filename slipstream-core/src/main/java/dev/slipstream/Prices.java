/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What reading from S3 costs, in US dollars: per 1,000 GET, HEAD and LIST requests, and per GB (10^9 bytes)
 * fetched. {@link #S3_STANDARD_US_EAST} holds S3 Standard's list prices in US East (N. Virginia), from
 * aws.amazon.com/s3/pricing: GET and all other requests $0.0004 per 1,000, LIST $0.005 per 1,000, transfer
 * free within the region. Set them with {@code cost.*} (see {@link SlipstreamConfig#prices()}).
 */
public record Prices(double getPer1000, double headPer1000, double listPer1000, double transferPerGb) {
  public static final Prices S3_STANDARD_US_EAST = new Prices(0.0004, 0.0004, 0.005, 0);

  public Prices {
    for (double d : new double[] {getPer1000, headPer1000, listPer1000, transferPerGb}) {
      if (!(d >= 0) || Double.isInfinite(d)) {
        throw new IllegalArgumentException("a price must be a finite amount of at least 0: " + d);
      }
    }
  }

  /** What {@code gets}, {@code heads}, {@code lists} requests and {@code bytesFetched} bytes cost. */
  public Cost cost(long gets, long heads, long lists, long bytesFetched, long bytesRead) {
    double requests = (gets * getPer1000 + heads * headPer1000 + lists * listPer1000) / 1000;
    double transfer = bytesFetched / 1e9 * transferPerGb;
    return new Cost(requests, transfer, bytesRead);
  }

  /** The cost of what {@code stats} counted (its GETs, HEADs, LISTs, bytes fetched and bytes read). */
  public Cost cost(ReadStatistics stats) {
    return cost(stats.get(Counter.GET_REQUESTS), stats.get(Counter.HEAD_REQUESTS), stats.get(Counter.LIST_REQUESTS),
        stats.get(Counter.BYTES_FETCHED), stats.get(Counter.BYTES_READ));
  }

  /**
   * A cost in US dollars: of requests, of transfer, and per GB (10^9 bytes) of {@code bytesRead}, the bytes
   * returned to callers (NaN when none were).
   */
  public record Cost(double requestDollars, double transferDollars, long bytesRead) {
    public double totalDollars() {
      return requestDollars + transferDollars;
    }

    public double dollarsPerGbRead() {
      return bytesRead > 0 ? totalDollars() / (bytesRead / 1e9) : Double.NaN;
    }
  }
}
