function r = rodd_recording(c, id, t_from, t_to, file)
%RODD_RECORDING  The session's recorded frames, through HDF5: r.t (F x 1, s), r.position
%   (F x N x 3), r.rotation (F x N x 3 x 3), r.s, r.rho, r.radius (F x N), r.kappa, r.nu
%   (F x N x 3), r.energy.kinetic/elastic/gravity (F x 1, J), r.volume_change (F x 1): the
%   frame first, as in Python and in the file (fields not recorded are absent). Optional
%   t_from, t_to (simulated seconds) limit the time range; file keeps the downloaded .h5.
%   MATLAB reads it with h5read, Octave with load('-hdf5').
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
  r = struct();
  if exist('OCTAVE_VERSION', 'builtin') ~= 0
    d = load('-hdf5', file);
  else
    d = struct();
    info = h5info(file);
    for k = 1:numel(info.Datasets)
      d.(info.Datasets(k).Name) = h5read(file, ['/' info.Datasets(k).Name]);
    end
    for g = 1:numel(info.Groups)
      name = regexprep(info.Groups(g).Name, '^/', '');
      for k = 1:numel(info.Groups(g).Datasets)
        ds = info.Groups(g).Datasets(k).Name;
        d.(name).(ds) = h5read(file, ['/' name '/' ds]);
      end
    end
  end
  % the file is time-major; both readers show its dimensions reversed
  for name = fieldnames(d)'
    v = d.(name{1});
    if isstruct(v)
      for e = fieldnames(v)'
        r.(name{1}).(e{1}) = v.(e{1})(:);
      end
    elseif isvector(v)
      r.(name{1}) = v(:);
    else
      r.(name{1}) = permute(v, ndims(v):-1:1);
    end
  end
end
