package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.mpfl.protocol.Sites;

/**
 * Which sites a run asks to be placed on ({@code mpflc run --sites}, the start request's {@code "sites"}):
 * a number of sites ({@code 2}: the two with the most free slots) or site names ({@code a,b}: those, in
 * that order). The run's ranks are split over them in contiguous blocks, as evenly as their free slots
 * allow. Without a request the engine packs a run within one site while capacity allows.
 *
 * @param count how many sites (0 when {@code names} is given)
 * @param names the sites by name, in order (empty when {@code count} is given)
 */
public record SiteRequest(int count, List<String> names) {
    /** The most sites a run may ask for by number (a typo such as 20 for 2 is caught early). */
    static final int MAX_COUNT = 64;

    public SiteRequest {
        names = List.copyOf(names);
        if (names.isEmpty() == (count == 0)) {
            throw new IllegalArgumentException("a site request is a number of sites or a list of site names");
        }
    }

    /**
     * Reads {@code N} or {@code NAME,NAME…}; {@code null} or blank: no request.
     *
     * @throws IllegalArgumentException with what is wrong (a number out of range, a malformed or repeated name)
     */
    public static SiteRequest parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String t = text.strip();
        if (t.chars().allMatch(Character::isDigit)) {
            int n;
            try {
                n = Integer.parseInt(t);
            } catch (NumberFormatException e) {
                n = Integer.MAX_VALUE;
            }
            if (n < 1 || n > MAX_COUNT) {
                throw new IllegalArgumentException("sites: a number of sites from 1 to " + MAX_COUNT + ", got " + t);
            }
            return new SiteRequest(n, List.of());
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String part : t.split(",", -1)) {
            if (part.isBlank()) {
                throw new IllegalArgumentException("sites: an empty site name in '" + t + "' (give N or NAME,NAME…)");
            }
            String name = Sites.of(part);
            if (!names.add(name)) {
                throw new IllegalArgumentException("sites: site '" + name + "' is named twice in '" + t + "'");
            }
        }
        return new SiteRequest(0, new ArrayList<>(names));
    }

    /** As written: {@code 2} or {@code a,b}. */
    @Override
    public String toString() {
        return names.isEmpty() ? Integer.toString(count) : String.join(",", names);
    }
}
