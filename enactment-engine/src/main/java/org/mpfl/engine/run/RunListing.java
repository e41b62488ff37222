package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One page of a runs list as the REST API answers it ({@link RunView}s) and how many runs matched
 * the query in all ({@code X-Total-Count}).
 *
 * @param total how many runs match, over all pages
 * @param runs  this page's runs
 */
public record RunListing(long total, List<JsonNode> runs) {
}
