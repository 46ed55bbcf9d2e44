/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Listing for split computation, behind {@link dev.slipstream.Lister}.
 *
 * <h2>Why flat</h2>
 * A job's driver lists its input directories before it can plan a task. Listing each directory costs at
 * least one request of tens of milliseconds; two years of hourly partitions is 17,520 of them. S3 lists
 * keys in order, 1,000 a request, across directory boundaries when no delimiter is given. So one flat
 * listing of the parent, merge-joined against the sorted directories of interest
 * ({@link dev.slipstream.internal.list.DirectoriesPlan}), brings 1,000 keys of any number of
 * directories a request: 17,520 requests became about a hundred in the reference design (Qubole, 2012).
 *
 * <h2>Why parallel</h2>
 * One listing is a chain: each request needs the previous page's continuation token. A long listing is
 * therefore cut into key ranges, each its own chain, listed at once and handed back in order
 * ({@link dev.slipstream.internal.list.ParallelListing}). Boundaries cost at most one request to find
 * ({@link dev.slipstream.internal.list.PrefixPlan}: one delimiter listing one level down; the merge-join
 * uses the directories of interest themselves), and nothing is cut until the first page proves the
 * listing long. Requests stay within {@code ceil(keys / 1000) + ranges}.
 *
 * <h2>Order</h2>
 * S3 orders keys by their UTF-8 bytes, which is code point order, not Java's UTF-16 order; every
 * comparison goes through {@link dev.slipstream.internal.list.KeyOrder}. Ranges are contiguous and
 * disjoint, each running from one boundary (exclusive, the next request's start-after) to the next
 * (inclusive), so concatenating them in order is the merge.
 *
 * <h2>One level</h2>
 * {@link dev.slipstream.internal.list.DelimiterListing} is the other shape: one prefix with delimiter
 * {@code /}, its objects and common prefixes, one request per page on the consumer's thread. It is for
 * a person looking at one "directory" ({@code slipstream ls}), not for split computation: it cannot be
 * cut into ranges, and it reads nothing ahead.
 */
package dev.slipstream.internal.list;
