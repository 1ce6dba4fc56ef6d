/**
 * Task Tracker - PDCA Bridge
 * Instruction-based bridge: generates context hints, NOT direct tool calls
 * One-way sync: PDCA → Tracker (PDCA is source of truth)
 *
 * Bridge state stored in docs/.tracker-bridge.json (ID mappings only)
 * Coexists with MCP team tools (spawn-agent-server) - different storage/lifecycle
 *
 * @version 2.0.3
 */
const fs = require('fs');
const path = require('path');
const { getFeatureFlags } = require('./version');

const BRIDGE_STATE_FILE = 'docs/.tracker-bridge.json';

function isTrackerAvailable() {
  try {
    return getFeatureFlags().hasTaskTracker === true;
  } catch (e) {
    return false;
  }
}

/**
 * Tracker integration modes
 * INSTRUCTION: Generate context hints for LLM (v1.x default)
 * DIRECT: Generate structured commands for direct tracker tool calls (v2.0.0)
 */
const TRACKER_MODE = Object.freeze({
  INSTRUCTION: 'instruction',
  DIRECT: 'direct'
});

/**
 * PDCA task templates for direct mode
 */
const PDCA_TASK_TEMPLATES = Object.freeze({
  plan:   { title: '[Plan] {feature}',   status: 'in_progress' },
  design: { title: '[Design] {feature}', status: 'pending', blockedBy: 'plan' },
  do:     { title: '[Do] {feature}',     status: 'pending', blockedBy: 'design' },
  check:  { title: '[Check] {feature}',  status: 'pending', blockedBy: 'do' },
  act:    { title: '[Act] {feature}',    status: 'pending', blockedBy: 'check' },
  report: { title: '[Report] {feature}', status: 'pending', blockedBy: 'check' }
});

const PDCA_TO_TRACKER_STATUS = Object.freeze({
  plan: 'in_progress', design: 'in_progress', do: 'in_progress',
  check: 'in_progress', act: 'in_progress', completed: 'done', archived: 'done',
  blocked: 'blocked' // v0.36.0+: Task blocked status (PR #22735)
});

/**
 * Determine tracker mode from config
 */
function getTrackerMode() {
  if (!isTrackerAvailable()) return null;
  try {
    const configPath = path.join(process.cwd(), 'bkit.config.json');
    if (!fs.existsSync(configPath)) return TRACKER_MODE.INSTRUCTION;
    const config = JSON.parse(fs.readFileSync(configPath, 'utf-8'));
    if (config.compatibility?.taskTracker?.directCrud === true) {
      return TRACKER_MODE.DIRECT;
    }
  } catch (e) { /* ignore */ }
  return TRACKER_MODE.INSTRUCTION;
}

/**
 * Create PDCA epic in tracker (supports instruction and direct modes)
 */
function createPdcaEpic(feature) {
  if (!isTrackerAvailable()) return { available: false, mode: null, hint: '' };

  const mode = getTrackerMode();

  if (mode === TRACKER_MODE.DIRECT) {
    const tasks = Object.entries(PDCA_TASK_TEMPLATES).map(([phase, tmpl]) => ({
      phase,
      title: tmpl.title.replace('{feature}', feature),
      status: tmpl.status,
      blockedBy: tmpl.blockedBy || null
    }));

    return {
      available: true,
      mode: TRACKER_MODE.DIRECT,
      tasks,
      epicTitle: `[PDCA] ${feature}`,
      hint: `[MANDATORY] Create tracker epic "${feature}" with ${tasks.length} subtasks.`
    };
  }

  // Instruction mode (fallback)
  return {
    available: true,
    mode: TRACKER_MODE.INSTRUCTION,
    hint: `Use tracker_create_task to create epic: "[PDCA] ${feature}" with 6 subtasks (Plan, Design, Do, Check, Act, Report)`
  };
}

/**
 * Sync PDCA phase transition to tracker (supports instruction and direct modes)
 */
function syncPhaseTransition(feature, fromPhase, toPhase) {
  if (!isTrackerAvailable()) return { mode: null, hint: '' };

  const mode = getTrackerMode();
  const status = PDCA_TO_TRACKER_STATUS[toPhase] || 'in_progress';

  if (mode === TRACKER_MODE.DIRECT) {
    return {
      mode: TRACKER_MODE.DIRECT,
      updates: [
        { phase: fromPhase, status: 'done' },
        { phase: toPhase, status }
      ],
      hint: `[MANDATORY] Update tracker: "${capitalize(fromPhase)}" -> done, "${capitalize(toPhase)}" -> ${status}`
    };
  }

  return {
    mode: TRACKER_MODE.INSTRUCTION,
    hint: `Update tracker: [${capitalize(fromPhase)}] -> done, [${capitalize(toPhase)}] -> ${status}`
  };
}

/**
 * Get visualization hint for current state
 */
function getVisualizationHint(feature, currentPhase) {
  if (!isTrackerAvailable()) return '';
  const phases = ['plan', 'design', 'do', 'check', 'act', 'report'];
  const idx = phases.indexOf(currentPhase);
  return phases.map((p, i) => {
    const label = capitalize(p);
    if (i < idx) return `[${label}] done`;
    if (i === idx) return `[${label}] >>> active`;
    return `[${label}] pending`;
  }).join(' -> ');
}

/**
 * Register tracker task IDs for bridge state persistence
 */
function registerTrackerIds(feature, taskIds) {
  try {
    const statePath = path.join(process.cwd(), BRIDGE_STATE_FILE);
    let state = {};
    if (fs.existsSync(statePath)) {
      state = JSON.parse(fs.readFileSync(statePath, 'utf-8'));
    }
    state[feature] = { ...state[feature], taskIds, updatedAt: new Date().toISOString() };
    fs.writeFileSync(statePath, JSON.stringify(state, null, 2), 'utf-8');
  } catch (e) { /* non-fatal */ }
}

/**
 * Get context injection for session-start
 */
function getTrackerContextInjection(feature, phase) {
  if (!isTrackerAvailable()) return '';
  return [
    '', '## Task Tracker Integration (v0.32.0+)',
    `Native Task Tracker available. PDCA feature "${feature}" can be tracked with:`,
    '- `tracker_create_task` to create tracker tasks',
    '- `tracker_visualize` to view task graph',
    `Current PDCA progress: ${getVisualizationHint(feature, phase)}`, ''
  ].join('\n');
}

/**
 * Get bridge operational status
 */
function getBridgeStatus() {
  return {
    available: isTrackerAvailable(),
    mode: 'instruction-based',
    syncDirection: 'pdca-to-tracker (one-way)',
    coexistence: 'MCP team tools operate independently'
  };
}

function capitalize(s) { return s.charAt(0).toUpperCase() + s.slice(1); }

module.exports = {
  isTrackerAvailable, PDCA_TO_TRACKER_STATUS,
  TRACKER_MODE, PDCA_TASK_TEMPLATES, getTrackerMode,
  createPdcaEpic, syncPhaseTransition, getVisualizationHint,
  registerTrackerIds, getTrackerContextInjection,
  getBridgeStatus
};
