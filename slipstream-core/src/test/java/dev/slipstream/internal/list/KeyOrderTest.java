/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** S3's key order (UTF-8 bytes, unsigned), checked against the bytes themselves. */
class KeyOrderTest {
  /** The order S3 lists keys in, by definition: their UTF-8 bytes compared as unsigned. */
  static final Comparator<String> UTF8_BYTES =
      (a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  private static final String GRINNING = "\uD83D\uDE00"; // U+1F600
  private static final String GRINNING_SWEAT = "\uD83D\uDE05"; // U+1F605
  private static final String LAST = "\uDBFF\uDFFF"; // U+10FFFF

  @Test
  void separatorsAndDigitsSortByTheirBytes() {
    // '-' (0x2d) < '/' (0x2f) < '0' (0x30): the file next to a directory can sort on either side of it
    assertThat(sorted("a0", "a/b", "a-b")).containsExactly("a-b", "a/b", "a0");
    assertThat(KeyOrder.compare("a/b", "a-b")).isPositive();
    assertThat(KeyOrder.compare("a/b", "a0")).isNegative();
    assertThat(KeyOrder.compare("a.b", "a/b")).isNegative();
    assertThat(KeyOrder.compare("A", "a")).isNegative();
    assertThat(KeyOrder.compare("Z", "_")).isNegative();
  }

  @Test
  void aKeySortsBeforeEveryKeyItIsAPrefixOf() {
    assertThat(sorted("a/b", "a/", "a", "")).containsExactly("", "a", "a/", "a/b");
    assertThat(KeyOrder.compare("dir", "dir/")).isNegative();
    assertThat(KeyOrder.compare("dir/", "dir")).isPositive();
  }

  @Test
  void equalKeysCompareEqual() {
    for (String k : new String[] {"", "a", "a/b/c", "\u00e9", GRINNING, "x" + LAST + "y"}) {
      assertThat(KeyOrder.compare(k, new String(k.toCharArray()))).as(k).isZero();
    }
  }

  @Test
  void nonAsciiSortsAfterAsciiByCodePoint() {
    // z (U+007A) < é (U+00E9) < € (U+20AC) < U+E000 (private use) < U+FFFD < U+1F600 < U+1F605 < U+10FFFF
    List<String> expected = List.of("z", "\u00e9", "\u20ac", "\ue000", "\ufffd", GRINNING, GRINNING_SWEAT, LAST);
    List<String> shuffled = new ArrayList<>(expected);
    java.util.Collections.shuffle(shuffled, new Random(3));
    shuffled.sort(KeyOrder.S3);
    assertThat(shuffled).isEqualTo(expected);
  }

  @Test
  void aCharacterAboveTheBmpSortsAfterTheTopOfTheBmpUnlikeJavaStringOrder() {
    // UTF-16 puts surrogates (0xD800..0xDFFF) below U+E000..U+FFFF; UTF-8 and S3 do not
    assertThat("k/" + GRINNING).isLessThan("k/\ufffd"); // Java's order, for contrast
    assertThat(KeyOrder.compare("k/" + GRINNING, "k/\ufffd")).isPositive();
    assertThat(KeyOrder.compare("k/\ue000", "k/" + LAST)).isNegative();
    assertThat(KeyOrder.compare("k/\uffff", "k/\uD800\uDC00")).isNegative(); // U+FFFF < U+10000
  }

  @Test
  void theOrderIsTheOrderOfTheUtf8Bytes() {
    // characters at every UTF-8 length and at the edges where UTF-16 and UTF-8 orders part
    String[] alphabet = {"", "-", ".", "/", "0", "9", "A", "Z", "_", "a", "z", "~", "\u007f", "\u0080", "\u00e9",
        "\u07ff", "\u0800", "\u20ac", "\ud7ff", "\ue000", "\uf8ff", "\ufffd", "\uffff", "\uD800\uDC00", GRINNING,
        GRINNING_SWEAT, LAST};
    Random random = new Random(18);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      StringBuilder sb = new StringBuilder();
      int n = random.nextInt(6);
      for (int k = 0; k < n; k++) {
        sb.append(alphabet[random.nextInt(alphabet.length)]);
      }
      keys.add(sb.toString());
    }
    for (int i = 0; i + 1 < keys.size(); i++) {
      String a = keys.get(i);
      String b = keys.get(i + 1);
      assertThat(Integer.signum(KeyOrder.compare(a, b))).as("%s vs %s", escape(a), escape(b))
          .isEqualTo(Integer.signum(UTF8_BYTES.compare(a, b)));
      assertThat(Integer.signum(KeyOrder.compare(b, a))).isEqualTo(-Integer.signum(KeyOrder.compare(a, b)));
    }
    List<String> byKeyOrder = new ArrayList<>(keys);
    byKeyOrder.sort(KeyOrder.S3);
    List<String> byBytes = new ArrayList<>(keys);
    byBytes.sort(UTF8_BYTES);
    assertThat(byKeyOrder).isEqualTo(byBytes);
  }

  @Test
  void theCommonPrefixOfTwoKeys() {
    assertThat(KeyOrder.commonPrefix("t/d=2020-01-01/", "t/d=2020-02-01/")).isEqualTo("t/d=2020-0");
    assertThat(KeyOrder.commonPrefix("abc", "abc")).isEqualTo("abc");
    assertThat(KeyOrder.commonPrefix("abc", "abcdef")).isEqualTo("abc");
    assertThat(KeyOrder.commonPrefix("abcdef", "abc")).isEqualTo("abc");
    assertThat(KeyOrder.commonPrefix("abc", "xyz")).isEmpty();
    assertThat(KeyOrder.commonPrefix("", "abc")).isEmpty();
    assertThat(KeyOrder.commonPrefix("\u00e9t\u00e9/a", "\u00e9t\u00e9/b")).isEqualTo("\u00e9t\u00e9/");
  }

  @Test
  void theCommonPrefixNeverEndsInHalfASurrogatePair() {
    // U+1F600 and U+1F605 share their high surrogate: the common prefix stops before both
    String p = KeyOrder.commonPrefix("k/" + GRINNING + "/a", "k/" + GRINNING_SWEAT + "/a");
    assertThat(p).isEqualTo("k/");
    assertThat(KeyOrder.commonPrefix("k/" + GRINNING + "/a", "k/" + GRINNING + "/b")).isEqualTo("k/" + GRINNING + "/");
    // and it is still valid UTF-16, a prefix of both in UTF-8 too
    assertThat(p.getBytes(StandardCharsets.UTF_8)).isEqualTo("k/".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theCommonPrefixIsAWholeCodePointPrefixOfBoth() {
    String[] alphabet = {"a", "/", "\u00e9", "\ufffd", GRINNING, GRINNING_SWEAT, LAST};
    Random random = new Random(5);
    for (int i = 0; i < 2_000; i++) {
      String a = randomKey(random, alphabet);
      String b = randomKey(random, alphabet);
      String p = KeyOrder.commonPrefix(a, b);
      assertThat(a).startsWith(p);
      assertThat(b).startsWith(p);
      assertThat(p.isEmpty() || !Character.isHighSurrogate(p.charAt(p.length() - 1))).isTrue();
      // the longest such: the next code points differ (or one key ends)
      if (p.length() < a.length() && p.length() < b.length()) {
        assertThat(a.codePointAt(p.length())).as("%s / %s", escape(a), escape(b)).isNotEqualTo(b.codePointAt(p.length()));
      }
    }
  }

  private static String randomKey(Random random, String[] alphabet) {
    StringBuilder sb = new StringBuilder();
    int n = random.nextInt(5);
    for (int k = 0; k < n; k++) {
      sb.append(alphabet[random.nextInt(alphabet.length)]);
    }
    return sb.toString();
  }

  private static List<String> sorted(String... keys) {
    List<String> l = new ArrayList<>(List.of(keys));
    l.sort(KeyOrder.S3);
    return l;
  }

  private static String escape(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().forEach(c -> sb.append(c < 0x80 ? String.valueOf((char) c) : String.format("\\u{%x}", c)));
    return sb.toString();
  }
}
