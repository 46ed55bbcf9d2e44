/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One LIST request of a {@link ScriptedS3Server} answered as S3 answers it: ListObjectsV2
 * ({@code list-type=2}) or ListObjects v1, with prefix, delimiter, {@code max-keys} (capped at 1,000),
 * {@code start-after}/{@code marker}, continuation tokens and {@code encoding-type=url}; and with the
 * rules of the store, which no well-behaved server here enforces:
 *
 * <ul>
 *   <li>A directory bucket (S3 Express One Zone, a name ending in {@code --x-s3}), as AWS documents its
 *       ListObjectsV2: keys come back in no particular order (here: a fixed order by a hash of the key, so
 *       that runs repeat), {@code start-after} is refused (400), a prefix that does not end in {@code /}
 *       is refused (400), {@code /} is the only delimiter, and ListObjects v1 is not supported (400).
 *   <li>A store without ListObjectsV2 ({@link ScriptedS3Server#withoutListObjectsV2()}): a request with
 *       {@code list-type=2} is refused (400), as an old store that knows only v1 would.
 * </ul>
 *
 * <p>A general-purpose bucket lists in S3's order (UTF-8 binary). Pages are cut by position in the
 * listing, so a continuation token is the index of the next entry.
 */
final class ScriptedListing {
  /** The suffix of a directory bucket's name, which AWS reserves for them. */
  static final String DIRECTORY_BUCKET_SUFFIX = "--x-s3";

  /** One object as a listing shows it. */
  record Entry(String key, long size, String etag, Instant lastModified) {}

  /** The answer: a status, and an XML body (a ListBucketResult, or an S3 error). */
  record Answer(int status, String xml) {}

  private ScriptedListing() {}

  /** Whether S3 treats {@code bucket} as a directory bucket: by its name, as the SDK does. */
  static boolean isDirectoryBucket(String bucket) {
    return bucket.endsWith(DIRECTORY_BUCKET_SUFFIX);
  }

  /** The answer to a LIST of {@code bucket} with the raw query {@code rawQuery} over {@code objects}. */
  static Answer answer(String bucket, String rawQuery, List<Entry> objects, boolean listV2Known) {
    Map<String, String> q = query(rawQuery);
    boolean v2 = "2".equals(q.get("list-type"));
    boolean directory = isDirectoryBucket(bucket);
    String prefix = q.getOrDefault("prefix", "");
    String delimiter = q.get("delimiter");
    if (v2 && !listV2Known) {
      return error(400, "InvalidArgument", "this store knows only ListObjects (v1): list-type=2 is not supported");
    }
    if (directory) {
      if (!v2) {
        return error(400, "InvalidRequest", "ListObjects (v1) is not supported for directory buckets");
      }
      if (q.containsKey("start-after")) {
        return error(400, "InvalidArgument", "StartAfter is not supported for directory buckets");
      }
      if (!prefix.isEmpty() && !prefix.endsWith("/")) {
        return error(400, "InvalidArgument", "directory buckets support only prefixes that end in /");
      }
      if (delimiter != null && !delimiter.equals("/")) {
        return error(400, "InvalidArgument", "directory buckets support only / as the delimiter");
      }
    }
    int maxKeys = q.containsKey("max-keys") ? Math.min(1000, Integer.parseInt(q.get("max-keys"))) : 1000;
    String after = v2 ? q.get("start-after") : q.get("marker");
    String token = v2 ? q.get("continuation-token") : null;

    List<Entry> sorted = new ArrayList<>();
    for (Entry e : objects) {
      if (e.key.startsWith(prefix)) {
        sorted.add(e);
      }
    }
    sorted.sort(directory ? Comparator.comparing((Entry e) -> md5(e.key)) : Comparator.comparing(Entry::key,
        ScriptedListing::compareUtf8));
    // Objects and common prefixes, in listing order, each common prefix once.
    List<Object> entries = new ArrayList<>();
    Set<String> rolledUp = new LinkedHashSet<>();
    for (Entry e : sorted) {
      int d = delimiter == null || delimiter.isEmpty() ? -1 : e.key.indexOf(delimiter, prefix.length());
      if (d >= 0) {
        String common = e.key.substring(0, d + delimiter.length());
        if (rolledUp.add(common)) {
          entries.add(common);
        }
      } else {
        entries.add(e);
      }
    }
    int from = 0;
    if (token != null) {
      from = Integer.parseInt(token);
    } else if (after != null && !after.isEmpty()) {
      while (from < entries.size() && compareUtf8(name(entries.get(from)), after) <= 0) {
        from++;
      }
    }
    int to = Math.min(entries.size(), from + maxKeys);
    boolean truncated = to < entries.size();
    boolean url = "url".equals(q.get("encoding-type"));

    StringBuilder x = new StringBuilder(256 + 256 * (to - from));
    x.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    element(x, "Name", bucket, false);
    element(x, "Prefix", prefix, url);
    if (delimiter != null) {
      element(x, "Delimiter", delimiter, url);
    }
    element(x, "MaxKeys", Integer.toString(maxKeys), false);
    if (url) {
      element(x, "EncodingType", "url", false);
    }
    element(x, "IsTruncated", Boolean.toString(truncated), false);
    if (v2) {
      element(x, "KeyCount", Integer.toString(to - from), false);
      if (token != null) {
        element(x, "ContinuationToken", token, false);
      }
      if (truncated) {
        element(x, "NextContinuationToken", Integer.toString(to), false);
      }
      if (after != null) {
        element(x, "StartAfter", after, url);
      }
    } else {
      element(x, "Marker", after == null ? "" : after, url);
      if (truncated) {
        element(x, "NextMarker", name(entries.get(to - 1)), url);
      }
    }
    for (Object o : entries.subList(from, to)) {
      if (o instanceof Entry e) {
        x.append("<Contents>");
        element(x, "Key", e.key, url);
        element(x, "LastModified", e.lastModified.toString(), false);
        element(x, "ETag", '"' + e.etag + '"', false);
        element(x, "Size", Long.toString(e.size), false);
        element(x, "StorageClass", directory ? "EXPRESS_ONEZONE" : "STANDARD", false);
        x.append("</Contents>");
      } else {
        x.append("<CommonPrefixes>");
        element(x, "Prefix", (String) o, url);
        x.append("</CommonPrefixes>");
      }
    }
    x.append("</ListBucketResult>");
    return new Answer(200, x.toString());
  }

  private static String name(Object entry) {
    return entry instanceof Entry e ? e.key : (String) entry;
  }

  private static Answer error(int status, String code, String message) {
    return new Answer(status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
        + escape(message) + "</Message></Error>");
  }

  private static void element(StringBuilder x, String name, String value, boolean url) {
    String v = url ? URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/")
        : value;
    x.append('<').append(name).append('>').append(escape(v)).append("</").append(name).append('>');
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** The query's parameters, decoded; a parameter without a value maps to "". */
  private static Map<String, String> query(String raw) {
    Map<String, String> q = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return q;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      q.put(URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v.replace("+", "%2B"), StandardCharsets.UTF_8));
    }
    return q;
  }

  /** S3's key order: UTF-8 bytes, unsigned. */
  static int compareUtf8(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static String md5(String key) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
