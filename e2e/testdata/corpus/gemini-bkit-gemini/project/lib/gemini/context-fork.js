/**
 * Context Fork Simulation for Gemini CLI
 * Provides context isolation for analysis agents (GAP-01)
 *
 * Philosophy: FR-03 (No Guessing) - Analysis agents must not modify main state during exploration
 *
 * v0.35.0 JIT Context Loading:
 * - PreCompress may fire before all context is lazy-loaded
 * - forkContext() validates PDCA data completeness before snapshotting
 * - Incomplete snapshots are flagged with jitPartial marker
 */
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const FORK_STORAGE_DIR = '.pdca-snapshots';

function getSnapshotDir(projectDir) {
  const dir = projectDir || getProjectDir();
  return path.join(dir, 'docs', '.pdca-snapshots');
}

// Lazy load for project directory
let _projectDir = null;
function getProjectDir() {
  if (_projectDir) return _projectDir;

  try {
    const adapter = require('./platform');
    _projectDir = adapter.getProjectDir();
  } catch {
    _projectDir = process.cwd();
  }

  return _projectDir;
}

/**
 * Generate unique fork ID
 * @returns {string}
 */
function generateForkId() {
  return crypto.randomUUID();
}

/**
 * Ensure directory exists
 * @param {string} dirPath
 */
function ensureDir(dirPath) {
  if (!fs.existsSync(dirPath)) {
    fs.mkdirSync(dirPath, { recursive: true });
  }
}

/**
 * Read JSON file safely
 * @param {string} filePath
 * @returns {object|null}
 */
function readJsonSync(filePath) {
  try {
    return JSON.parse(fs.readFileSync(filePath, 'utf-8'));
  } catch {
    return null;
  }
}

/**
 * Write JSON file
 * @param {string} filePath
 * @param {object} data
 */
function writeJsonSync(filePath, data) {
  fs.writeFileSync(filePath, JSON.stringify(data, null, 2));
}

/**
 * Read current PDCA status
 * @param {string} projectDir
 * @returns {object}
 */
function readPdcaStatus(projectDir) {
  try {
    const { loadPdcaStatus } = require('../pdca/status');
    return loadPdcaStatus(projectDir);
  } catch {
    // Fallback: root path (v2.0.0 standard location)
    const statusPath = path.join(projectDir, '.pdca-status.json');
    return readJsonSync(statusPath) || { version: '2.0', activeFeatures: {}, features: {} };
  }
}

/**
 * Read current memory
 * @param {string} projectDir
 * @returns {object}
 */
function readMemory(projectDir) {
  try {
    const { getMemory } = require('../core/memory');
    const manager = getMemory(projectDir);
    return manager.load();
  } catch {
    // Fallback: v2.0.0 standard location
    const memoryPath = path.join(projectDir, '.bkit', 'state', 'memory.json');
    return readJsonSync(memoryPath) || { version: '1.0', data: {} };
  }
}

/**
 * Write PDCA status
 * @param {string} projectDir
 * @param {object} status
 */
function writePdcaStatus(projectDir, status) {
  const statusDir = path.join(projectDir, '.bkit', 'state');
  if (!fs.existsSync(statusDir)) {
    fs.mkdirSync(statusDir, { recursive: true });
  }
  const statusPath = path.join(statusDir, 'pdca-status.json');
  writeJsonSync(statusPath, status);
}

/**
 * Deep merge objects
 * @param {object} target
 * @param {object} source
 * @returns {object}
 */
function deepMerge(target, source) {
  const result = { ...target };

  for (const key of Object.keys(source)) {
    if (source[key] && typeof source[key] === 'object' && !Array.isArray(source[key])) {
      result[key] = deepMerge(result[key] || {}, source[key]);
    } else if (Array.isArray(source[key])) {
      // For arrays, union and dedupe
      const existing = Array.isArray(result[key]) ? result[key] : [];
      result[key] = [...new Set([...existing, ...source[key]])];
    } else {
      result[key] = source[key];
    }
  }

  return result;
}

/**
 * Create a new context fork
 * Snapshots current state for isolated execution
 *
 * @param {string} agentName - Name of agent requesting fork
 * @param {object} options - Fork options
 * @param {boolean} options.mergeResult - Whether to merge results back (default: true)
 * @param {string} options.projectDir - Project directory override
 * @returns {{forkId: string, snapshotPath: string}}
 */
function forkContext(agentName, options = {}) {
  const forkId = generateForkId();
  const projectDir = options.projectDir || getProjectDir();

  // 1. Snapshot current state
  const pdcaStatus = readPdcaStatus(projectDir);
  const memory = readMemory(projectDir);

  // JIT safeguard: detect if PDCA data may be incomplete
  // In v0.35.0+ JIT mode, context may not be fully loaded when PreCompress fires
  let jitPartial = false;
  try {
    const { getFeatureFlags } = require('./version');
    if (getFeatureFlags().hasJITContextLoading) {
      // Check for signs of incomplete state:
      // - No features defined yet (empty object)
      // - No primaryFeature despite activeFeatures existing
      const hasFeatures = pdcaStatus.features && Object.keys(pdcaStatus.features).length > 0;
      const hasOrphanActive = Array.isArray(pdcaStatus.activeFeatures)
        && pdcaStatus.activeFeatures.length > 0
        && !pdcaStatus.primaryFeature;
      if (!hasFeatures || hasOrphanActive) {
        jitPartial = true;
      }
    }
  } catch (e) { /* version module unavailable, assume non-JIT */ }

  const snapshot = {
    forkId,
    agentName,
    createdAt: new Date().toISOString(),
    pdcaStatus,
    memory,
    jitPartial,
    options: {
      mergeResult: options.mergeResult !== false,
      ...options
    }
  };

  // 2. Store snapshot
  const snapshotDir = getSnapshotDir(projectDir);
  ensureDir(snapshotDir);

  // Support named snapshots
  const snapshotName = options.name || `fork-${forkId}`;
  snapshot.name = snapshotName;

  const snapshotPath = path.join(snapshotDir, `${snapshotName}.json`);
  writeJsonSync(snapshotPath, snapshot);

  // 3. Enforce LRU limit (max 10 snapshots)
  enforceSnapshotLimit(snapshotDir, options.maxSnapshots || 10);

  // 4. Return fork reference
  return {
    forkId,
    snapshotPath,
    agentName,
    name: snapshotName,
    createdAt: snapshot.createdAt
  };
}

/**
 * Merge forked context back to main
 * Combines fork results with current main state
 *
 * @param {string} forkId - Fork identifier
 * @param {object} forkResult - Result data from fork execution
 * @param {object} mergeOptions - Merge strategy options
 * @param {string} mergeOptions.strategy - 'smart'|'replace'|'append' (default: 'smart')
 * @param {string} mergeOptions.projectDir - Project directory override
 * @returns {{success: boolean, merged?: object, error?: string}}
 */
function mergeForkedContext(forkId, forkResult = {}, mergeOptions = {}) {
  const projectDir = mergeOptions.projectDir || getProjectDir();
  const snapshotDir = getSnapshotDir(projectDir);
  const snapshotPath = path.join(snapshotDir, `fork-${forkId}.json`);

  if (!fs.existsSync(snapshotPath)) {
    return {
      success: false,
      error: `Fork ${forkId} not found`
    };
  }

  try {
    const snapshot = readJsonSync(snapshotPath);
    const currentStatus = readPdcaStatus(projectDir);

    // JIT safeguard: if the snapshot was taken during incomplete context loading,
    // prefer current state over snapshot baseline to avoid overwriting with stale data
    if (snapshot.jitPartial) {
      // Log warning for diagnostics
      if (process.env.BKIT_DEBUG === '1' || process.env.BKIT_DEBUG === 'true') {
        console.error(`[bkit] Warning: merging JIT-partial fork ${forkId} - snapshot may be incomplete`);
      }
    }

    // Merge strategy
    const strategy = mergeOptions.strategy || 'smart';
    let merged;

    if (strategy === 'replace') {
      // Replace current with fork result
      merged = {
        ...currentStatus,
        ...forkResult
      };
    } else if (strategy === 'append') {
      // Append only new items
      merged = {
        ...currentStatus,
        history: [
          ...(currentStatus.history || []),
          ...(forkResult.history || [])
        ]
      };
    } else {
      // Smart merge (default)
      merged = {
        ...currentStatus,
        // Merge activeFeatures arrays (dedupe)
        activeFeatures: typeof currentStatus.activeFeatures === 'object'
          ? deepMerge(currentStatus.activeFeatures, forkResult.activeFeatures || {})
          : currentStatus.activeFeatures,
        // Deep merge features object
        features: deepMerge(currentStatus.features || {}, forkResult.features || {}),
        // Add fork merge to history
        history: [
          ...(currentStatus.history || []),
          {
            timestamp: new Date().toISOString(),
            action: 'fork_merged',
            feature: snapshot.agentName,
            details: `Merged fork ${forkId} from agent ${snapshot.agentName}`
          }
        ],
        lastUpdated: new Date().toISOString()
      };
    }

    // Write merged state
    writePdcaStatus(projectDir, merged);

    // Cleanup snapshot
    fs.unlinkSync(snapshotPath);

    return {
      success: true,
      merged,
      forkId,
      agentName: snapshot.agentName
    };
  } catch (error) {
    return {
      success: false,
      error: error.message
    };
  }
}

/**
 * Discard a forked context without merging
 * Deletes snapshot, no changes to main state
 *
 * @param {string} forkId - Fork identifier
 * @param {object} options - Options
 * @param {string} options.projectDir - Project directory override
 * @returns {{success: boolean, error?: string}}
 */
function discardFork(forkId, options = {}) {
  const projectDir = options.projectDir || getProjectDir();
  const snapshotDir = getSnapshotDir(projectDir);
  const snapshotPath = path.join(snapshotDir, `fork-${forkId}.json`);

  try {
    if (fs.existsSync(snapshotPath)) {
      const snapshot = readJsonSync(snapshotPath);
      fs.unlinkSync(snapshotPath);

      return {
        success: true,
        forkId,
        agentName: snapshot?.agentName,
        discardedAt: new Date().toISOString()
      };
    }

    return {
      success: true,
      forkId,
      message: 'Fork already discarded or not found'
    };
  } catch (error) {
    return {
      success: false,
      error: error.message
    };
  }
}

/**
 * List all active forks
 *
 * @param {object} options - Options
 * @param {string} options.projectDir - Project directory override
 * @returns {Array<{forkId: string, agentName: string, createdAt: string}>}
 */
function listActiveForks(options = {}) {
  const projectDir = options.projectDir || getProjectDir();
  const snapshotDir = getSnapshotDir(projectDir);

  if (!fs.existsSync(snapshotDir)) {
    return [];
  }

  try {
    return fs.readdirSync(snapshotDir)
      .filter(f => f.startsWith('fork-') && f.endsWith('.json'))
      .map(f => {
        const snapshot = readJsonSync(path.join(snapshotDir, f));
        if (!snapshot) return null;

        return {
          forkId: snapshot.forkId,
          agentName: snapshot.agentName,
          createdAt: snapshot.createdAt,
          mergeResult: snapshot.options?.mergeResult
        };
      })
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Get fork details by ID
 *
 * @param {string} forkId - Fork identifier
 * @param {object} options - Options
 * @returns {object|null}
 */
function getFork(forkId, options = {}) {
  const projectDir = options.projectDir || getProjectDir();
  const snapshotDir = getSnapshotDir(projectDir);
  const snapshotPath = path.join(snapshotDir, `fork-${forkId}.json`);

  if (!fs.existsSync(snapshotPath)) {
    return null;
  }

  return readJsonSync(snapshotPath);
}

/**
 * Cleanup old forks (older than maxAge)
 *
 * @param {object} options - Options
 * @param {number} options.maxAgeMs - Max age in milliseconds (default: 24 hours)
 * @param {string} options.projectDir - Project directory override
 * @returns {{cleaned: number, remaining: number}}
 */
function cleanupOldForks(options = {}) {
  const maxAgeMs = options.maxAgeMs || 24 * 60 * 60 * 1000; // 24 hours
  const projectDir = options.projectDir || getProjectDir();
  const snapshotDir = getSnapshotDir(projectDir);

  if (!fs.existsSync(snapshotDir)) {
    return { cleaned: 0, remaining: 0 };
  }

  const now = Date.now();
  let cleaned = 0;
  let remaining = 0;

  try {
    const files = fs.readdirSync(snapshotDir)
      .filter(f => f.startsWith('fork-') && f.endsWith('.json'));

    for (const file of files) {
      const filePath = path.join(snapshotDir, file);
      const snapshot = readJsonSync(filePath);

      if (snapshot && snapshot.createdAt) {
        const age = now - new Date(snapshot.createdAt).getTime();

        if (age > maxAgeMs) {
          fs.unlinkSync(filePath);
          cleaned++;
        } else {
          remaining++;
        }
      }
    }
  } catch {
    // Ignore errors
  }

  return { cleaned, remaining };
}

/**
 * Enforce maximum snapshot limit (LRU eviction)
 * @param {string} snapshotDir
 * @param {number} maxSnapshots
 */
function enforceSnapshotLimit(snapshotDir, maxSnapshots = 10) {
  try {
    const files = fs.readdirSync(snapshotDir)
      .filter(f => f.endsWith('.json'))
      .map(f => {
        const filePath = path.join(snapshotDir, f);
        const stat = fs.statSync(filePath);
        return { file: f, path: filePath, mtime: stat.mtimeMs };
      })
      .sort((a, b) => b.mtime - a.mtime); // newest first

    // Remove oldest files beyond limit
    if (files.length > maxSnapshots) {
      const toRemove = files.slice(maxSnapshots);
      for (const item of toRemove) {
        fs.unlinkSync(item.path);
      }
    }
  } catch {
    // Ignore errors
  }
}

/**
 * Diff two snapshots to see what changed
 * @param {string} forkId1 - First fork ID
 * @param {string} forkId2 - Second fork ID (or 'current' for current state)
 * @param {object} options
 * @returns {{added: string[], removed: string[], modified: string[]}}
 */
function diffSnapshots(forkId1, forkId2, options = {}) {
  const projectDir = options.projectDir || getProjectDir();

  const state1 = forkId1 === 'current'
    ? readPdcaStatus(projectDir)
    : (getFork(forkId1, options)?.pdcaStatus || {});

  const state2 = forkId2 === 'current'
    ? readPdcaStatus(projectDir)
    : (getFork(forkId2, options)?.pdcaStatus || {});

  const features1 = Object.keys(state1.features || {});
  const features2 = Object.keys(state2.features || {});

  const added = features2.filter(f => !features1.includes(f));
  const removed = features1.filter(f => !features2.includes(f));
  const modified = features1.filter(f => {
    if (!features2.includes(f)) return false;
    return JSON.stringify(state1.features[f]) !== JSON.stringify(state2.features[f]);
  });

  return { added, removed, modified };
}

module.exports = {
  FORK_STORAGE_DIR,
  forkContext,
  mergeForkedContext,
  discardFork,
  listActiveForks,
  getFork,
  cleanupOldForks,
  enforceSnapshotLimit,
  diffSnapshots,
  // Utilities exported for testing
  generateForkId,
  deepMerge
};
