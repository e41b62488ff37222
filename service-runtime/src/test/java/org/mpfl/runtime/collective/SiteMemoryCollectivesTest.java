package org.mpfl.runtime.collective;

/**
 * The collective suite over in-memory channels whose ranks span two sites (contiguous blocks of ranks,
 * each site's ranks round-robin on two hosts): every algorithm of every operation, {@code auto} picking
 * the site-aware hierarchical ones, gives the results the suite expects.
 */
class SiteMemoryCollectivesTest extends MemoryCollectivesTest {
    @Override
    protected MemoryChannels world(int p) {
        return super.world(p).withSites(2);
    }
}
