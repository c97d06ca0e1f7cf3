function r = rodd_recording(c, id, t_from, t_to, file)
%RODD_RECORDING  The session's recorded frames, through HDF5: r.t (F x 1, s), r.position
%   (F x N x 3), r.rotation (F x N x 3 x 3), r.s, r.rho, r.radius (F x N), r.kappa, r.nu
%   (F x N x 3), r.energy.kinetic/elastic/gravity (F x 1, J), r.volume_change (F x 1): the
%   frame first, as in Python and in the file (fields not recorded are absent). Where the
%   model has them: r.base.position (F x 3), r.base.rotation (F x 3 x 3) of a moving or
%   free base; r.bodies.NAME.position (F x 3); r.constraints.NAME.force, .moment, .point,
%   .target (F x 3), .violation (F x 1) (a volume: .pressure, .violation); r.contacts, a
%   table of every frame's contacts, a row each: .count (F x 1), .frame (M x 1, the row of t
%   counted from 0: frame k's rows are r.contacts.frame == k - 1), .s (M x 1), .point,
%   .force (M x 3). Names that are not MATLAB identifiers are changed as makeValidName does
%   ('tip-hold' -> tip_hold). A model of several rods has r.rods.NAME.position and each
%   rod's other per-point fields instead of r's own. Optional t_from, t_to (simulated seconds) limit the time
%   range; file keeps the downloaded .h5. MATLAB reads it with h5read, Octave with
%   load('-hdf5').
  q = '?format=hdf5';
  if nargin >= 3 && ~isempty(t_from)
    q = sprintf('%s&from=%.17g', q, t_from);
  end
  if nargin >= 4 && ~isempty(t_to)
    q = sprintf('%s&to=%.17g', q, t_to);
  end
  if nargin < 5 || isempty(file)
    file = [tempname() '.h5'];
    cleanup = onCleanup(@() delete(file));
  end
  [~, raw] = rodd_request(c, 'GET', ['/v1/sessions/' id '/recording' q], [], 'application/x-hdf5');
  f = fopen(file, 'w');
  fwrite(f, raw, 'uint8');
  fclose(f);
  r = read_frames(file);
end

function r = read_frames(file)
  if exist('OCTAVE_VERSION', 'builtin') ~= 0
    d = load('-hdf5', file);
  else
    d = read_group(file, h5info(file));
  end
  r = time_first(d);
end

function d = read_group(file, g)
  % every dataset of group g and, as structs, of the groups below it
  d = struct();
  prefix = g.Name;
  if ~strcmp(prefix, '/')
    prefix = [prefix '/'];
  end
  for k = 1:numel(g.Datasets)
    name = g.Datasets(k).Name;
    d.(matlab.lang.makeValidName(name)) = h5read(file, [prefix name]);
  end
  for k = 1:numel(g.Groups)
    name = regexprep(g.Groups(k).Name, '^.*/', '');
    d.(matlab.lang.makeValidName(name)) = read_group(file, g.Groups(k));
  end
end

function v = time_first(v)
  % the file is time-major; both readers show its dimensions reversed
  if isstruct(v)
    for name = fieldnames(v)'
      v.(name{1}) = time_first(v.(name{1}));
    end
  elseif isvector(v)
    v = v(:);
  else
    v = permute(v, ndims(v):-1:1);
  end
end
