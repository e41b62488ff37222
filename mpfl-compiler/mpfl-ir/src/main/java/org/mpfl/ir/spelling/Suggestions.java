package org.mpfl.ir.spelling;

import java.util.Collection;

/**
 * "did you mean" hints for misspelt names: edit distance at most 2, or 3 for a name of 8 letters or more
 * ({@code sendrecieve} for {@code sendrecv}: a long name has room for a longer slip).
 */
public final class Suggestions {
    /** Names of at least this many letters may be 3 edits away. */
    private static final int LONG_NAME = 8;

    private Suggestions() {
    }

    /** {@code " (did you mean 'to'?)"} or an empty string. */
    public static String didYouMean(String written, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(written.toLowerCase(java.util.Locale.ROOT), candidate.toLowerCase(java.util.Locale.ROOT));
            int allowed = candidate.length() >= LONG_NAME ? 3 : 2;
            if (d <= allowed && d < bestDistance && d < Math.max(2, candidate.length())) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best == null ? "" : " (did you mean '" + best + "'?)";
    }

    static int distance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > 3 || a.length() > 64 || b.length() > 64) {
            return Integer.MAX_VALUE;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
